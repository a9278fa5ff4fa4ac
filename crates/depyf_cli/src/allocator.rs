//! The process's global allocator: mimalloc (v2 line), called through its plain entry
//! points where the layout allows.
//!
//! Decompilation builds and drops many small trees (about 190 allocations per
//! function on a standard library): with the system allocator a third of the time went
//! to malloc/free. The `mimalloc` crate's allocator calls `mi_malloc_aligned` for every
//! layout, whose alignment checks cost about as much again as the allocation itself
//! (`callgrind`, CPython 3.12 standard library: 102 M of 2.55 G instructions in the
//! aligned entry points for 3.5 M allocations). Every mimalloc block is aligned to at
//! least the machine word (mimalloc `include/mimalloc/types.h`, `MI_INTPTR_SIZE` size
//! classes), so layouts aligned to a word or less go to `mi_malloc`/`mi_zalloc`/
//! `mi_realloc`, and only larger alignments take the aligned entry points. mimalloc's
//! v2 line: the same instructions as v3 here, with a lower peak (26 instead of 40 MiB on
//! a whole 3.12 standard library) and no 2 MiB pages for the kernel to clear.
//!
//! The only `unsafe` code of the workspace (a `GlobalAlloc` cannot be written without
//! it): each call passes the caller's pointer and sizes through unchanged.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// Alignment that every mimalloc block has, whatever its size: one machine word.
const WORD: usize = std::mem::size_of::<usize>();

/// mimalloc as the global allocator (see the module documentation).
pub struct Mimalloc;

// SAFETY: every method forwards to the mimalloc function with the same contract as the
// `GlobalAlloc` method (a null pointer on failure; `ptr` was returned by this
// allocator; sizes and alignments from the caller's `Layout`). The plain entry points
// are used only for alignments of at most a word, which every mimalloc block meets.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: see the impl.
            unsafe { mi::mi_malloc(layout.size()) as *mut u8 }
        } else {
            // SAFETY: see the impl.
            unsafe { mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8 }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: see the impl.
            unsafe { mi::mi_zalloc(layout.size()) as *mut u8 }
        } else {
            // SAFETY: see the impl.
            unsafe { mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8 }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: see the impl (`mi_free` frees blocks of either entry point).
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: see the impl.
            unsafe { mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8 }
        } else {
            // SAFETY: see the impl.
            unsafe { mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8 }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every small size and alignment come back aligned, hold what was
    /// written, and keep it through growth.
    #[test]
    fn aligned_blocks_of_every_small_size() {
        let a = Mimalloc;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in (1..=130).chain([1000, 5000, 70_000]) {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size; the block is written within its size and
                // freed once, with its layout.
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    p.write_bytes(0xab, size);
                    let q = a.realloc(p, layout, size * 3);
                    assert_eq!(q as usize % align, 0, "grown: size {size} align {align}");
                    assert!((0..size).all(|i| *q.add(i) == 0xab));
                    a.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
