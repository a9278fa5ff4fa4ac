//! Reading a live `types.CodeType` field by field (no `marshal`, so constants that
//! marshal cannot write still work: they become `Constant::Opaque`).

use depyf_bytecode::{local_kind, CodeObject, Constant, PythonVersion};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyComplex, PyFloat, PyFrozenSet, PyInt, PyString, PyTuple};

/// The running interpreter's version.
pub fn running_version(py: Python<'_>) -> PyResult<PythonVersion> {
    let vi = py.import("sys")?.getattr("version_info")?;
    let major: u8 = vi.getattr("major")?.extract()?;
    let minor: u8 = vi.getattr("minor")?.extract()?;
    Ok(PythonVersion::new(major, minor))
}

fn strings(obj: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    obj.extract::<Vec<String>>()
}

/// Converts a constant; `None` when it has no literal form (at any depth).
fn constant(py: Python<'_>, obj: &Bound<'_, PyAny>, version: PythonVersion) -> PyResult<Option<Constant>> {
    if obj.is_none() {
        return Ok(Some(Constant::None));
    }
    if obj.is(py.Ellipsis()) {
        return Ok(Some(Constant::Ellipsis));
    }
    let ty = obj.get_type();
    // Exact types only: a subclass of int or str has no literal.
    let builtins = py.import("builtins")?;
    let is = |name: &str| -> PyResult<bool> { Ok(ty.is(&builtins.getattr(name)?)) };
    if is("bool")? {
        return Ok(Some(Constant::Bool(obj.extract()?)));
    }
    if is("int")? {
        let i = obj.cast::<PyInt>()?;
        return Ok(Some(match i.extract::<i64>() {
            Ok(v) => Constant::Int(v),
            // Hex past `MAX_DECIMAL_BITS`, as the marshal reader writes it (`str()`
            // of such an int raises where the digit limit applies).
            Err(_) if i.call_method0("bit_length")?.extract::<u64>()? > depyf_bytecode::MAX_DECIMAL_BITS => {
                Constant::BigInt(builtins.getattr("format")?.call1((i, "#x"))?.extract::<String>()?)
            }
            Err(_) => Constant::BigInt(i.str()?.to_string()),
        }));
    }
    if is("float")? {
        return Ok(Some(Constant::Float(obj.cast::<PyFloat>()?.value())));
    }
    if is("complex")? {
        let c = obj.cast::<PyComplex>()?;
        return Ok(Some(Constant::Complex(c.real(), c.imag())));
    }
    if is("str")? {
        return Ok(obj.cast::<PyString>()?.to_cow().ok().map(|s| Constant::Str(s.into())));
    }
    if is("bytes")? {
        return Ok(Some(Constant::Bytes(obj.cast::<PyBytes>()?.as_bytes().to_vec())));
    }
    if is("tuple")? {
        let mut items = Vec::new();
        for it in obj.cast::<PyTuple>()?.iter() {
            match constant(py, &it, version)? {
                Some(c) => items.push(c),
                None => return Ok(None),
            }
        }
        return Ok(Some(Constant::Tuple(items)));
    }
    if is("frozenset")? {
        let mut items = Vec::new();
        for it in obj.cast::<PyFrozenSet>()?.iter() {
            match constant(py, &it, version)? {
                Some(c) => items.push(c),
                None => return Ok(None),
            }
        }
        return Ok(Some(Constant::FrozenSet(items)));
    }
    if is("slice")? {
        let mut parts = Vec::new();
        for attr in ["start", "stop", "step"] {
            match constant(py, &obj.getattr(attr)?, version)? {
                Some(c) => parts.push(c),
                None => return Ok(None),
            }
        }
        let [a, b, c]: [Constant; 3] = parts.try_into().expect("three parts");
        return Ok(Some(Constant::Slice(Box::new([a, b, c]))));
    }
    let types = py.import("types")?;
    if ty.is(&types.getattr("CodeType")?) {
        return Ok(Some(Constant::Code(std::sync::Arc::new(read_code(py, obj, version)?))));
    }
    Ok(None)
}

/// Reads `obj` (a `types.CodeType` of the running interpreter) into a [`CodeObject`].
///
/// Errors: `TypeError` if `obj` is not a code object.
pub fn read_code(py: Python<'_>, obj: &Bound<'_, PyAny>, version: PythonVersion) -> PyResult<CodeObject> {
    let types = py.import("types")?;
    if !obj.is_instance(&types.getattr("CodeType")?)? {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "expected a code object, got {}",
            obj.get_type().name()?
        )));
    }
    let get = |name: &str| obj.getattr(name);
    let varnames = strings(&get("co_varnames")?)?;
    let cellvars = strings(&get("co_cellvars")?)?;
    let freevars = strings(&get("co_freevars")?)?;
    let (localsplus, kinds) = if version >= PythonVersion::PY311 {
        // 3.11+: one array; a parameter that is also a cell is one slot.
        let mut names = varnames.clone();
        let mut kinds: Vec<u8> = varnames
            .iter()
            .map(|n| local_kind::LOCAL | if cellvars.contains(n) { local_kind::CELL } else { 0 })
            .collect();
        for c in &cellvars {
            if !varnames.contains(c) {
                names.push(c.clone());
                kinds.push(local_kind::CELL);
            }
        }
        for f in &freevars {
            names.push(f.clone());
            kinds.push(local_kind::FREE);
        }
        // Trust the interpreter's own layout where it tells us.
        if obj.hasattr("_varname_from_oparg")? {
            for (i, slot) in names.iter_mut().enumerate() {
                if let Ok(n) = obj.call_method1("_varname_from_oparg", (i,)) {
                    *slot = n.extract()?;
                }
            }
        }
        (names, kinds)
    } else {
        let mut names = varnames.clone();
        let mut kinds = vec![local_kind::LOCAL; varnames.len()];
        names.extend(cellvars.iter().cloned());
        kinds.extend(std::iter::repeat_n(local_kind::CELL, cellvars.len()));
        names.extend(freevars.iter().cloned());
        kinds.extend(std::iter::repeat_n(local_kind::FREE, freevars.len()));
        (names, kinds)
    };
    let mut consts = Vec::new();
    for (i, c) in get("co_consts")?.cast::<PyTuple>()?.iter().enumerate() {
        consts.push(match constant(py, &c, version)? {
            Some(k) => k,
            None => {
                let repr = c.repr().map(|r| r.to_string()).unwrap_or_else(|_| "<unrepresentable>".into());
                let repr: String = repr.chars().take(200).collect();
                Constant::Opaque { index: i, type_name: c.get_type().qualname()?.to_string(), repr }
            }
        });
    }
    let linetable = if version >= PythonVersion::PY310 { get("co_linetable")? } else { get("co_lnotab")? };
    let name: String = get("co_name")?.extract()?;
    Ok(CodeObject {
        version,
        co_argcount: get("co_argcount")?.extract()?,
        co_posonlyargcount: get("co_posonlyargcount")?.extract()?,
        co_kwonlyargcount: get("co_kwonlyargcount")?.extract()?,
        co_stacksize: get("co_stacksize")?.extract()?,
        co_flags: get("co_flags")?.extract()?,
        co_code: get("co_code")?.cast::<PyBytes>()?.as_bytes().to_vec(),
        co_consts: consts,
        co_names: strings(&get("co_names")?)?.into_iter().map(Into::into).collect(),
        co_localsplusnames: localsplus.into_iter().map(Into::into).collect(),
        co_localspluskinds: kinds,
        co_filename: get("co_filename")?.extract()?,
        co_qualname: if version >= PythonVersion::PY311 { get("co_qualname")?.extract()? } else { name.clone() },
        co_name: name,
        co_firstlineno: get("co_firstlineno")?.extract()?,
        co_linetable: linetable.cast::<PyBytes>()?.as_bytes().to_vec(),
        co_exceptiontable: if version >= PythonVersion::PY311 {
            get("co_exceptiontable")?.cast::<PyBytes>()?.as_bytes().to_vec()
        } else {
            Vec::new()
        },
    })
}
