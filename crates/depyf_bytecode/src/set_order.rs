//! The iteration order of a frozenset that `marshal.loads` rebuilds, so that `repr()`
//! prints its elements in the order CPython would.
//!
//! `marshal` stores a frozenset's elements in the order the compiling process iterated
//! them; the loading process adds them one by one to a fresh set, whose iteration order
//! is the order of its hash-table slots. Reproducing that needs the elements' hashes and
//! the set's probing and resizing rules (CPython `Objects/setobject.c`: `set_add_entry`,
//! `set_table_resize`, `set_insert_clean`, `LINEAR_PROBES` 9, `PERTURB_SHIFT` 5).
//!
//! String and bytes hashes depend on the process's hash secret; we compute them as a
//! process started with `PYTHONHASHSEED=0` would (all-zero SipHash key: SipHash-2-4 up
//! to 3.10, SipHash-1-3 from 3.11; CPython `Python/pyhash.c`). Elements whose hash we
//! cannot know (`None` before 3.12, non-integral floats, code objects, ...) make the
//! whole set keep its marshal order.

use crate::{Constant, PythonVersion};

const MODULUS: u64 = (1 << 61) - 1;

fn sipround(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13) ^ v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16) ^ v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21) ^ v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17) ^ v[2];
    v[2] = v[2].rotate_left(32);
}

/// SipHash-c-d with a zero key.
fn siphash(data: &[u8], c: usize, d: usize) -> u64 {
    let mut v = [0x736f_6d65_7073_6575u64, 0x646f_7261_6e64_6f6d, 0x6c79_6765_6e65_7261, 0x7465_6462_7974_6573];
    let mut chunks = data.chunks_exact(8);
    for ch in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(ch);
        let m = u64::from_le_bytes(w);
        v[3] ^= m;
        for _ in 0..c {
            sipround(&mut v);
        }
        v[0] ^= m;
    }
    let mut last = [0u8; 8];
    let rem = chunks.remainder();
    last[..rem.len()].copy_from_slice(rem);
    let b = u64::from_le_bytes(last) | ((data.len() as u64 & 0xff) << 56);
    v[3] ^= b;
    for _ in 0..c {
        sipround(&mut v);
    }
    v[0] ^= b;
    v[2] ^= 0xff;
    for _ in 0..d {
        sipround(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

fn hash_bytes(data: &[u8], version: PythonVersion) -> i64 {
    if data.is_empty() {
        return 0;
    }
    let x = if version >= PythonVersion::PY311 { siphash(data, 1, 3) } else { siphash(data, 2, 4) } as i64;
    if x == -1 {
        -2
    } else {
        x
    }
}

/// The bytes CPython hashes for a str: its compact representation (latin-1, UCS-2 or
/// UCS-4, little-endian), chosen by the largest code point (PEP 393).
fn str_buffer(s: &str) -> Vec<u8> {
    let max = s.chars().map(|c| c as u32).max().unwrap_or(0);
    let mut out = Vec::with_capacity(s.len() * 2);
    for c in s.chars() {
        let u = c as u32;
        match max {
            0..=0xff => out.push(u as u8),
            0x100..=0xffff => out.extend_from_slice(&(u as u16).to_le_bytes()),
            _ => out.extend_from_slice(&u.to_le_bytes()),
        }
    }
    out
}

fn int_hash_mod(neg: bool, m: u64) -> i64 {
    let h = if neg { -(m as i64) } else { m as i64 };
    if h == -1 {
        -2
    } else {
        h
    }
}

/// `hash(c)` in a `PYTHONHASHSEED=0` process of `version`, if we can know it.
pub fn py_hash(c: &Constant, version: PythonVersion) -> Option<i64> {
    match c {
        Constant::Bool(b) => Some(i64::from(*b)),
        // 3.12 gave None a constant hash (`_Py_NoneStruct`'s `0xFCA86420`).
        Constant::None if version >= PythonVersion::PY312 => Some(0xFCA8_6420),
        Constant::Int(i) => Some(int_hash_mod(*i < 0, i.unsigned_abs() % MODULUS)),
        Constant::BigInt(s) => {
            let (neg, digits) = match s.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, s.as_str()),
            };
            // Decimal, or hex past `MAX_DECIMAL_BITS` (see `Constant::BigInt`).
            let (radix, digits) = match digits.strip_prefix("0x") {
                Some(h) => (16, h),
                None => (10, digits),
            };
            let mut m: u64 = 0;
            for b in digits.chars() {
                let d = b.to_digit(radix)?;
                m = ((u128::from(m) * u128::from(radix) + u128::from(d)) % u128::from(MODULUS)) as u64;
            }
            Some(int_hash_mod(neg, m))
        }
        Constant::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
            let i = *f as i64;
            Some(int_hash_mod(i < 0, i.unsigned_abs() % MODULUS))
        }
        Constant::Str(s) => Some(hash_bytes(&str_buffer(s), version)),
        Constant::Bytes(b) => Some(hash_bytes(b, version)),
        Constant::Tuple(items) => {
            // xxHash-based tuple hash (CPython 3.8+ `Objects/tupleobject.c` `tuplehash`).
            const P1: u64 = 11_400_714_785_074_694_791;
            const P2: u64 = 14_029_467_366_897_019_727;
            const P5: u64 = 2_870_177_450_012_600_261;
            let mut acc = P5;
            for it in items {
                let lane = py_hash(it, version)? as u64;
                acc = acc.wrapping_add(lane.wrapping_mul(P2));
                acc = acc.rotate_left(31);
                acc = acc.wrapping_mul(P1);
            }
            acc = acc.wrapping_add((items.len() as u64) ^ (P5 ^ 3_527_539));
            Some(if acc == u64::MAX { 1_546_275_796 } else { acc as i64 })
        }
        _ => None,
    }
}

/// The positions of `items` (a frozenset in marshal order) in the iteration order of
/// the set `marshal.loads` builds from them; the identity order if some hash is unknown.
pub fn frozenset_order(items: &[Constant], version: PythonVersion) -> Vec<usize> {
    let identity: Vec<usize> = (0..items.len()).collect();
    let Some(hashes) = items.iter().map(|c| py_hash(c, version)).collect::<Option<Vec<i64>>>() else {
        return identity;
    };
    const LINEAR_PROBES: usize = 9;
    const PERTURB_SHIFT: u32 = 5;
    let mut table: Vec<Option<usize>> = vec![None; 8];
    let mut fill = 0usize;
    let insert_clean = |table: &mut Vec<Option<usize>>, idx: usize, hash: i64| {
        let mask = table.len() - 1;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        loop {
            let probes = if i + LINEAR_PROBES <= mask { LINEAR_PROBES } else { 0 };
            for j in 0..=probes {
                if table[i + j].is_none() {
                    table[i + j] = Some(idx);
                    return;
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
        }
    };
    for (idx, &h) in hashes.iter().enumerate() {
        // Elements are distinct, so adding never finds an equal key: it takes the first
        // free slot of the probe sequence, like `set_insert_clean`.
        insert_clean(&mut table, idx, h);
        fill += 1;
        let mask = table.len() - 1;
        if fill * 5 >= mask * 3 {
            let used = fill;
            let minused = if used > 50_000 { used * 2 } else { used * 4 };
            let mut newsize = 8usize;
            while newsize <= minused {
                newsize <<= 1;
            }
            let old = std::mem::replace(&mut table, vec![None; newsize]);
            for e in old.into_iter().flatten() {
                insert_clean(&mut table, e, hashes[e]);
            }
        }
    }
    table.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_match_cpython_with_seed_zero() {
        // PYTHONHASHSEED=0 python3.12 -c "print(hash('a'), hash(b'abcdefghij'))"
        let v = PythonVersion::PY312;
        assert_eq!(py_hash(&Constant::Str("a".into()), v), Some(4_644_417_185_603_328_019));
        assert_eq!(py_hash(&Constant::Int(-1), v), Some(-2));
        assert_eq!(py_hash(&Constant::Int(1 << 61), v), Some(1));
        assert_eq!(py_hash(&Constant::Tuple(vec![]), v), Some(5_740_354_900_026_072_187));
        assert_eq!(py_hash(&Constant::None, v), Some(0xFCA8_6420));
        assert_eq!(py_hash(&Constant::None, PythonVersion::PY311), None);
        // PYTHONHASHSEED=0 python3.10 -c "print(hash('a'))"
        assert_eq!(py_hash(&Constant::Str("a".into()), PythonVersion::PY310), Some(-7_583_489_610_679_606_711));
    }

    #[test]
    fn small_int_sets_iterate_by_slot() {
        let items: Vec<Constant> = [3, 1, 2].iter().map(|&i| Constant::Int(i)).collect();
        assert_eq!(frozenset_order(&items, PythonVersion::PY310), vec![1, 2, 0]);
    }
}
