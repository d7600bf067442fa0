//! Launch-spec templates for a PTX module (`regwatt spec new FILE.ptx`): one buffer
//! per pointer parameter ([`crate::analysis::param_use`] tells pointers from 64-bit integers
//! and gives their element types), one `[[launch]]` per kernel, every value a commented
//! placeholder chosen so that the template loads and runs as is.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::analysis::param_use::{pointer_params, PointerUse};
use crate::ir::{Function, Module, Param, Space, Sym, Ty};

use super::data::DType;
use super::spec::{is_buffer_name, MAX_BLOCK_THREADS};

/// Elements of every template buffer, the integer scalars' value and the threads a template
/// launch covers.
pub const TEMPLATE_LEN: usize = 1024;
/// Threads per block of a template launch (unless the kernel's `.reqntid` / `.maxntid` says
/// otherwise).
pub const TEMPLATE_BLOCK: u32 = 256;

/// Why no template could be written.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// The module has no kernel with a body.
    #[error("{file}: no kernels (no .entry function with a body)")]
    NoKernels {
        /// The PTX file.
        file: String,
    },
    /// A kernel asked for is not in the module.
    #[error("{file}: no kernel {name:?} (kernels: {available})")]
    UnknownKernel {
        /// The PTX file.
        file: String,
        /// The name asked for.
        name: String,
        /// The module's kernels.
        available: String,
    },
}

/// The buffer dtype of an access type, and a note when it is not exact.
fn dtype_of(ty: Ty) -> (DType, Option<&'static str>) {
    match ty {
        Ty::F32 => (DType::F32, None),
        Ty::F64 => (DType::F64, None),
        Ty::U8 | Ty::B8 => (DType::U8, None),
        Ty::S8 => (DType::I8, None),
        Ty::U16 | Ty::B16 => (DType::U16, None),
        Ty::S16 => (DType::I16, None),
        Ty::U32 | Ty::B32 => (DType::U32, None),
        Ty::S32 => (DType::I32, None),
        Ty::U64 | Ty::B64 => (DType::U64, None),
        Ty::S64 => (DType::I64, None),
        Ty::TF32 => (DType::F32, Some("tf32 held as f32")),
        Ty::F16 | Ty::BF16 => (
            DType::U16,
            Some("16-bit floats have no buffer dtype: raw u16 bits"),
        ),
        Ty::F16x2 | Ty::BF16x2 => (
            DType::U32,
            Some("packed 16-bit floats have no buffer dtype: raw u32 bits"),
        ),
        Ty::B128 | Ty::Pred | Ty::None => (
            DType::U32,
            Some("no element type in the access: u32 assumed"),
        ),
    }
}

/// The PTX spelling of a type (`.u32`).
fn ptx_ty(ty: Ty) -> String {
    format!(".{}", format!("{ty:?}").to_lowercase())
}

/// The template value of a scalar parameter, and what it is.
fn scalar_value(p: &Param) -> (String, String) {
    let ty = ptx_ty(p.ty);
    match p.ty {
        Ty::F32 | Ty::F64 => ("1.0".into(), format!("{ty} scalar")),
        Ty::F16 | Ty::BF16 | Ty::F16x2 | Ty::BF16x2 | Ty::TF32 => (
            "0".into(),
            format!("{ty} scalar: launch specs cannot pass this type"),
        ),
        t => {
            let max: u64 = match (t.bits(), t.is_signed()) {
                (8, true) => 127,
                (8, false) => 255,
                _ => TEMPLATE_LEN as u64,
            };
            let note = if p.size == 8 {
                "never used as a global address, so an integer (size_t, long); give a buffer name if it is a pointer"
            } else {
                "an element count"
            };
            (
                max.min(TEMPLATE_LEN as u64).to_string(),
                format!("{ty} scalar ({note})"),
            )
        }
    }
}

/// A buffer name from a parameter name: `[A-Za-z_][A-Za-z0-9_]*`, unique among `taken`.
fn buffer_name(param: &str, kernel: Option<&str>, taken: &BTreeSet<String>) -> String {
    let base = kernel
        .and_then(|k| param.strip_prefix(k))
        .and_then(|r| r.strip_prefix('_'))
        .filter(|r| !r.is_empty())
        .unwrap_or(param);
    let mut name: String = base
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !is_buffer_name(&name) {
        name.insert(0, '_');
    }
    let mut unique = name.clone();
    let mut k = 2;
    while taken.contains(&unique) {
        unique = format!("{name}_{k}");
        k += 1;
    }
    unique
}

/// True if `f` addresses an `.extern .shared` variable (dynamic shared memory).
fn uses_dynamic_shared(module: &Module, f: &Function) -> bool {
    let dynamic = |s: &Sym| {
        matches!(s, Sym::Global(i) if module.globals.get(*i as usize)
            .is_some_and(|g| g.is_extern && g.space == Space::Shared))
            || matches!(s, Sym::Local(i) if f.vars.get(*i as usize)
            .is_some_and(|v| v.is_extern && v.space == Space::Shared))
    };
    f.instrs.iter().any(|i| {
        i.src
            .iter()
            .any(|o| o.symbol().is_some_and(|s| dynamic(&s)))
    })
}

/// One buffer of the template.
struct Buffer {
    name: String,
    comment: String,
    dtype: DType,
    init: String,
    /// Only written (a candidate for the example `[check]`).
    output: bool,
}

fn buffer_for(p: &Param, u: Option<&PointerUse>, name: String, seed: usize) -> Buffer {
    let Some(u) = u else {
        // a `.ptr` parameter the analysis found no access through
        return Buffer {
            name,
            comment: format!(
                "{} (.u64 .ptr): a pointer, but no global access through it was found, so f32 is assumed",
                p.name
            ),
            dtype: DType::F32,
            init: "{ kind = \"fill\", value = 0 }".into(),
            output: false,
        };
    };
    let a = u.typed_by;
    let (dtype, note) = dtype_of(a.ty);
    let space = if a.space == Space::Global {
        ".global"
    } else {
        ""
    };
    let mut comment = format!(
        "{} (.u64): a pointer; {} from `{}{space}{}` at PTX line {}",
        p.name,
        dtype.name(),
        a.kind.name(),
        ptx_ty(a.ty),
        a.line
    );
    if let Some(n) = note {
        let _ = write!(comment, " ({n})");
    }
    let init = if u.loaded {
        comment.push_str("; loaded, so random contents");
        if dtype.is_float() {
            format!("{{ kind = \"uniform\", min = -1.0, max = 1.0, seed = {seed} }}")
        } else {
            let hi = dtype
                .int_range()
                .map_or(0, |(_, hi)| hi.min(TEMPLATE_LEN as i128 - 1));
            format!("{{ kind = \"uniform\", min = 0, max = {hi}, seed = {seed} }}")
        }
    } else {
        comment.push_str(if u.atomic {
            "; updated by atomics, so zeros"
        } else {
            "; only stored, so zeros"
        });
        "{ kind = \"fill\", value = 0 }".into()
    };
    Buffer {
        name,
        comment,
        dtype,
        init,
        output: !u.loaded,
    }
}

/// A commented launch-spec template for `kernels` of `module` (all its kernels when empty, in
/// module order; else in the order given). `file` names the PTX in messages and comments,
/// `ptx_path` is written as the spec's `ptx` (relative to where the spec will be).
pub fn spec_template(
    file: &str,
    ptx_path: &str,
    module: &Module,
    kernels: &[String],
) -> Result<String, TemplateError> {
    let all: Vec<&Function> = module.kernels().filter(|k| k.defined).collect();
    if all.is_empty() {
        return Err(TemplateError::NoKernels { file: file.into() });
    }
    let chosen: Vec<&Function> = if kernels.is_empty() {
        all.clone()
    } else {
        kernels
            .iter()
            .map(|name| {
                all.iter()
                    .copied()
                    .find(|k| k.name == *name)
                    .ok_or_else(|| TemplateError::UnknownKernel {
                        file: file.into(),
                        name: name.clone(),
                        available: all
                            .iter()
                            .map(|k| k.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
            })
            .collect::<Result<_, _>>()?
    };
    let single = (chosen.len() == 1).then(|| chosen[0].name.as_str());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Launch spec template for {file}, written by `regwatt spec new`.\n\
         #\n\
         # Every value below is a PLACEHOLDER to set for your kernel: buffer dtypes, lengths and\n\
         # initial contents, scalar arguments, grid and block. They are chosen so that the spec\n\
         # loads and runs as is (`regwatt exec THIS.toml --dump DIR`): buffers of {TEMPLATE_LEN} elements,\n\
         # integer scalars {TEMPLATE_LEN}, float scalars 1.0, {TEMPLATE_LEN} threads per launch. Paths are\n\
         # relative to this file. Format (init kinds, struct arguments, [check]):\n\
         # sim/src/launch/README.md, \"Spec format\".\n\
         ptx = {}",
        toml::Value::String(ptx_path.to_string())
    );
    let mut taken = BTreeSet::new();
    let mut launches = String::new();
    let mut example: Option<(String, bool)> = None;
    for k in &chosen {
        let uses = pointer_params(k);
        let mut args: Vec<(String, String)> = Vec::new();
        for (p, u) in k.params.iter().zip(&uses) {
            let pointer = p.size == 8 && p.count == 1 && (u.is_some() || p.ptr.is_some());
            if pointer {
                let name = buffer_name(&p.name, single, &taken);
                taken.insert(name.clone());
                let b = buffer_for(p, u.as_ref(), name, taken.len());
                let _ = write!(
                    out,
                    "\n# {}\n[buffers.{}]\ndtype = \"{}\"\nlen = {TEMPLATE_LEN}\ninit = {}\n",
                    b.comment,
                    b.name,
                    b.dtype.name(),
                    b.init
                );
                if example.as_ref().is_none_or(|(_, o)| !o && b.output) {
                    example = Some((b.name.clone(), b.output));
                }
                args.push((format!("{:?}", b.name), format!("{}: buffer", p.name)));
            } else if p.count > 1 || p.ty == Ty::B8 && p.size > 1 {
                args.push((
                    format!("{{ struct = [{{ pad = {} }}] }}", p.size),
                    format!(
                        "{}: a {}-byte struct or array by value, all zero here; list its fields (README, \"Struct arguments\")",
                        p.name, p.size
                    ),
                ));
            } else {
                let (v, what) = scalar_value(p);
                args.push((v, format!("{}: {what}", p.name)));
            }
        }
        let block = match (k.tuning.reqntid, k.tuning.maxntid) {
            (Some(b), _) => b,
            (None, Some(m)) if u64::from(m[0]) * u64::from(m[1]) * u64::from(m[2]) < 256 => m,
            _ => [TEMPLATE_BLOCK, 1, 1],
        };
        let threads = (u64::from(block[0]) * u64::from(block[1]) * u64::from(block[2]))
            .clamp(1, MAX_BLOCK_THREADS);
        let grid = (TEMPLATE_LEN as u64).div_ceil(threads);
        let _ = write!(
            launches,
            "\n[[launch]]\nkernel = {:?}\ngrid = [{grid}, 1, 1]                 # {grid} blocks x {threads} threads = {} threads (placeholder)\nblock = [{}, {}, {}]\n",
            k.name,
            grid * threads,
            block[0],
            block[1],
            block[2]
        );
        if uses_dynamic_shared(module, k) {
            let _ = writeln!(
                launches,
                "dynamic_shared_bytes = {}        # the kernel uses `extern __shared__` memory: its size in bytes (placeholder)",
                4 * threads
            );
        }
        if args.is_empty() {
            launches.push_str("args = []\n");
        } else {
            let width = args.iter().map(|(v, _)| v.len()).max().unwrap_or(0) + 1;
            launches.push_str("args = [                          # in parameter order\n");
            for (v, c) in &args {
                let _ = writeln!(launches, "    {:<width$} # {c}", format!("{v},"));
            }
            launches.push_str("]\n");
        }
    }
    for (i, g) in super::constants::uninitialised_constants(module) {
        // the element type the kernels load it with (NVRTC declares arrays `.b8`), when it
        // divides the variable's size
        let loaded = super::constants::first_load_ty(module, i)
            .filter(|t| t.bits() >= 8 && g.size % (t.bits() / 8) == 0);
        let (dtype, note) = dtype_of(loaded.unwrap_or(g.ty));
        let how = if loaded.is_some() {
            "as the kernels load it"
        } else {
            "as declared"
        };
        let len = (g.size as usize / dtype.size()).max(1);
        let _ = write!(
            out,
            "\n# __constant__ {name}: `.const {ty} {name}` ({size} bytes) is read by the kernels and has no\n\
             # initialiser in the PTX, so they read zeros until its data is set here, as\n\
             # cudaMemcpyToSymbol({name}, ...) does ({len} x {dt} {how}{note}; placeholder).\n\
             # [constants.{name}]\n\
             # dtype = \"{dt}\"\n\
             # len = {len}\n\
             # init = {{ kind = \"npy\", path = \"{name}.npy\" }}\n",
            name = g.name,
            ty = ptx_ty(g.ty),
            size = g.size,
            dt = dtype.name(),
            note = note.map(|n| format!(", {n}")).unwrap_or_default(),
        );
    }
    out.push_str(&launches);
    if let Some((name, _)) = example {
        let _ = write!(
            out,
            "\n# Optional: compare buffers after the last launch with expected contents; `regwatt exec`\n\
             # and `regwatt run` then print check: PASS or FAIL and fail on a difference.\n\
             # [check.{name}]\n\
             # npy = \"expected/{name}.npy\"   # relative to this file; the buffer's dtype and length\n\
             # abs = 0.0                      # float buffers: pass when |actual - expected| <= abs + rel * |expected|\n\
             # rel = 0.0                      # abs = rel = 0 (the default): exact; integers always exact\n"
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::{LaunchSpec, MemFiles};

    const VECTOR_ADD: &str = include_str!("../../../workloads/vectorAdd/vectorAdd.ptx");

    fn template(ptx: &str, kernels: &[&str]) -> Result<String, TemplateError> {
        let m = crate::ptx::parse("k.ptx", ptx).unwrap();
        let kernels: Vec<String> = kernels.iter().map(|s| s.to_string()).collect();
        spec_template("k.ptx", "k.ptx", &m, &kernels)
    }

    /// The vectorAdd template loads and runs as is: three f32 buffers (a and b
    /// loaded, c only stored), n = 1024, 4 blocks of 256 threads; c = a + b.
    #[test]
    fn vector_add_template_loads_and_runs() {
        let text = template(VECTOR_ADD, &[]).unwrap();
        let files = MemFiles::new("t").with("k.ptx", VECTOR_ADD.as_bytes().to_vec());
        let spec =
            LaunchSpec::parse("t.toml", &text, &files).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let names: Vec<_> = spec.buffers.keys().cloned().collect();
        assert_eq!(names, ["param_0", "param_1", "param_2"], "{text}");
        assert!(spec
            .buffers
            .values()
            .all(|b| b.dtype == DType::F32 && b.len == 1024));
        assert!(
            text.contains("f32 from `ld.global.f32` at PTX line "),
            "{text}"
        );
        assert!(text.contains("only stored, so zeros"), "{text}");
        assert!(text.contains("# [check.param_2]"), "{text}");
        let l = &spec.launches[0];
        assert_eq!((l.grid, l.block), ([4, 1, 1], [256, 1, 1]));
        assert_eq!(l.args.last(), Some(&crate::launch::LaunchArg::Int(1024)));
        let run = crate::exec::run_spec(&spec, &Default::default()).unwrap();
        let (Some(crate::launch::HostData::F32(a)), Some(crate::launch::HostData::F32(b))) =
            (run.buffers.get("param_0"), run.buffers.get("param_1"))
        else {
            panic!("f32 buffers expected")
        };
        let want: Vec<f32> = a.iter().zip(b).map(|(x, y)| x + y).collect();
        assert_eq!(run.buffers["param_2"], crate::launch::HostData::F32(want));
    }

    /// Several kernels: one launch each, buffers named after the full parameter names; a
    /// `size_t` is a scalar, a struct by value a zero `pad`, dynamic shared memory sized;
    /// `--kernel` selects; unknown kernels and kernel-less modules are errors.
    #[test]
    fn template_kernels_scalars_structs_and_errors() {
        let ptx = ".version 8.0\n.target sm_75\n.address_size 64\n\
            .extern .shared .align 4 .b8 smem[];\n\
            .visible .entry a(.param .u64 a_p, .param .u64 a_n, .param .align 8 .b8 a_s[16], .param .f32 a_x)\n{\n\
            .reg .b64 %rd<5>;\n.reg .f32 %f<3>;\n.reg .b32 %r<3>;\n\
            ld.param.u64 %rd1, [a_p];\nld.param.u64 %rd2, [a_n];\n\
            cvta.to.global.u64 %rd3, %rd1;\nshl.b64 %rd4, %rd2, 2;\nsub.s64 %rd4, %rd4, 4;\nadd.s64 %rd3, %rd3, %rd4;\n\
            ld.param.f32 %f1, [a_x];\nld.shared.f32 %f2, [smem];\nadd.f32 %f1, %f1, %f2;\n\
            atom.global.add.f32 %f2, [%rd3], %f1;\nret;\n}\n\
            .visible .entry b(.param .u64 b_p)\n{\n.reg .b64 %rd<3>;\n.reg .b32 %r<2>;\n\
            ld.param.u64 %rd1, [b_p];\ncvta.to.global.u64 %rd2, %rd1;\n\
            ld.global.s32 %r1, [%rd2];\nst.global.s32 [%rd2], %r1;\nret;\n}\n";
        let text = template(ptx, &[]).unwrap();
        let files = MemFiles::new("t").with("k.ptx", ptx.as_bytes().to_vec());
        let spec =
            LaunchSpec::parse("t.toml", &text, &files).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(
            spec.buffers.keys().collect::<Vec<_>>(),
            ["a_p", "b_p"],
            "{text}"
        );
        assert_eq!(spec.buffers["a_p"].dtype, DType::F32);
        assert_eq!(spec.buffers["b_p"].dtype, DType::I32);
        assert!(text.contains("updated by atomics, so zeros"), "{text}");
        assert!(text.contains("min = 0, max = 1023"), "{text}");
        assert!(text.contains("# [check.a_p]"), "{text}");
        use crate::launch::LaunchArg;
        let a = &spec.launches[0];
        assert_eq!(a.args[1], LaunchArg::Int(1024));
        assert!(matches!(&a.args[2], LaunchArg::Struct(f) if f.len() == 1 && f[0].ty == "pad"));
        assert_eq!(a.args[3], LaunchArg::Float(1.0));
        assert_eq!(a.dynamic_shared_bytes, 1024);
        assert_eq!(spec.launches[1].dynamic_shared_bytes, 0);
        crate::exec::run_spec(&spec, &Default::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let only_b = template(ptx, &["b"]).unwrap();
        assert!(
            only_b.contains("[buffers.p]") && !only_b.contains("kernel = \"a\""),
            "{only_b}"
        );
        let e = template(ptx, &["c"]).unwrap_err().to_string();
        assert_eq!(e, "k.ptx: no kernel \"c\" (kernels: a, b)");
        let none = ".version 8.0\n.target sm_75\n.address_size 64\n";
        assert!(template(none, &[])
            .unwrap_err()
            .to_string()
            .contains("no kernels"));
    }
}
