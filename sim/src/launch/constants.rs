//! A spec's `[constants.<symbol>]` tables: host data for a module's `.const` variables, written
//! before the first launch as the CUDA runtime's `cudaMemcpyToSymbol(symbol, src, count)` does
//! (CUDA Runtime API, "Memory Management": `count` bytes from offset 0; the rest of the
//! variable keeps its PTX initialiser, or zeros).

use crate::ir::{AddrBase, Module, Opcode, Operand, Space, Sym, Ty, Var};
use crate::mem::ConstSpace;

use super::spec::{LaunchSpec, SpecError};

impl LaunchSpec {
    /// Writes every `[constants.<symbol>]` table into `consts` (the module's constant bank, as
    /// `Program::load` laid it out). An error names the spec file, the table's line and its
    /// key: a symbol the module does not declare `.const`, or data longer than the variable.
    pub fn write_constants(&self, consts: &mut ConstSpace) -> Result<(), SpecError> {
        for (name, c) in &self.constants {
            let bytes = c.initial_data().to_le_bytes();
            consts.write_symbol(name, &bytes).map_err(|_| {
                let message = match consts.size_of(name) {
                    Some(size) => format!(
                        "{} bytes ({} x {}) do not fit the .const variable {name}, which holds \
                         {size} bytes",
                        bytes.len(),
                        c.len,
                        c.dtype
                    ),
                    None => format!(
                        "the PTX ({}) declares no .const variable {name}{}",
                        self.ptx_path,
                        declared_list(consts)
                    ),
                };
                SpecError::Invalid {
                    file: self.file.clone(),
                    line: c.at.line,
                    col: c.at.col,
                    key: format!("constants.{name}"),
                    message,
                }
            })?;
        }
        Ok(())
    }

    /// The module's `.const` variables that some function reads, that have no initialiser in
    /// the PTX and that this spec does not set: their kernels read zeros, as a CUDA program
    /// that never calls `cudaMemcpyToSymbol` would. In declaration order.
    pub fn unset_constants(&self, module: &Module) -> Vec<String> {
        uninitialised_constants(module)
            .filter(|(_, g)| !self.constants.contains_key(&g.name))
            .map(|(_, g)| g.name.clone())
            .collect()
    }
}

/// The module's `.const` variables that some defined function addresses and that have no
/// initialiser in the PTX, with their index in `module.globals`, in declaration order.
pub(crate) fn uninitialised_constants(module: &Module) -> impl Iterator<Item = (usize, &Var)> {
    let mut used = vec![false; module.globals.len()];
    for f in module.functions.iter().filter(|f| f.defined) {
        for ins in &f.instrs {
            for o in ins.src.iter().chain(&ins.dst) {
                if let Some(Sym::Global(i)) = o.symbol() {
                    if let Some(u) = used.get_mut(i as usize) {
                        *u = true;
                    }
                }
            }
        }
    }
    module
        .globals
        .iter()
        .zip(used)
        .enumerate()
        .filter(|(_, (g, used))| *used && g.space == Space::Const && g.init.is_none())
        .map(|(i, (g, _))| (i, g))
}

/// The type of the first `ld` addressing module variable `index` directly (`ld.const.f32
/// [taps+4]`), e.g. the element type of a `.b8` array NVRTC declares for a `__constant__ float`
/// array; `None` when every access goes through a register.
pub(crate) fn first_load_ty(module: &Module, index: usize) -> Option<Ty> {
    module
        .functions
        .iter()
        .flat_map(|f| &f.instrs)
        .find(|ins| {
            ins.op == Opcode::Ld
                && matches!(ins.src.first(), Some(Operand::Addr(a))
                    if a.base == AddrBase::Sym(Sym::Global(index as u32)))
        })
        .map(|ins| ins.ty)
}

/// ` (it declares: a, b)` or ` (it declares none)`.
fn declared_list(consts: &ConstSpace) -> String {
    let names = consts.names();
    if names.is_empty() {
        " (it declares none)".into()
    } else {
        format!(" (it declares: {})", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use crate::exec::Program;
    use crate::launch::{HostData, LaunchSpec, MemFiles};
    use crate::mem::{GlobalMemory, MemSpace};

    const PTX: &str = ".version 7.0\n.target sm_75\n.address_size 64\n\
        .const .align 4 .b8 taps[16];\n\
        .const .align 4 .u32 scale = 3;\n\
        .const .align 4 .u32 unused[2];\n\
        .visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n\
        ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n\
        ld.const.u32 %r1, [taps+4];\nld.const.u32 %r2, [scale];\nmul.lo.u32 %r3, %r1, %r2;\n\
        st.global.u32 [%rd1], %r3;\nret;\n}\n";

    fn spec(constants: &str) -> Result<LaunchSpec, crate::launch::SpecError> {
        let files = MemFiles::new("mem").with("k.ptx", PTX.as_bytes());
        let text = format!(
            "ptx = \"k.ptx\"\n[buffers.out]\ndtype = \"u32\"\nlen = 1\n\
             init = {{ kind = \"fill\", value = 0 }}\n{constants}\n\
             [[launch]]\nkernel = \"k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\nargs = [\"out\"]\n"
        );
        LaunchSpec::parse("s.toml", &text, &files)
    }

    fn bank(s: &LaunchSpec) -> Result<crate::mem::ConstSpace, crate::launch::SpecError> {
        let module = crate::ptx::parse("k.ptx", PTX).expect("ptx");
        let p = Program::load("k.ptx", &module, &mut GlobalMemory::new()).expect("load");
        let mut consts = p.consts.clone();
        s.write_constants(&mut consts)?;
        Ok(consts)
    }

    #[test]
    fn a_constants_table_fills_the_symbol_and_round_trips() {
        let s = spec(
            "[constants.taps]\ndtype = \"u32\"\nlen = 3\n\
             init = { kind = \"iota\", start = 10, step = 1 }",
        )
        .expect("spec");
        let consts = bank(&s).expect("written");
        let at = consts.address_of("taps").expect("taps");
        // 10, 11, 12 from the spec; the fourth word keeps its zero
        let words: Vec<u32> = (0..4)
            .map(|i| consts.read_u32(at + 4 * i).unwrap())
            .collect();
        assert_eq!(words, [10, 11, 12, 0]);
        let scale = consts.address_of("scale").expect("scale");
        assert_eq!(
            consts.read_u32(scale).unwrap(),
            3,
            "the PTX initialiser stays"
        );
        let again = LaunchSpec::parse(
            "r.toml",
            &s.to_resolved_toml(),
            &MemFiles::new("mem").with("k.ptx", PTX.as_bytes()),
        )
        .expect("resolved spec parses");
        let shape = |s: &LaunchSpec| {
            s.constants
                .iter()
                .map(|(n, c)| (n.clone(), c.dtype, c.len, c.init.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(shape(&again), shape(&s));
        assert_eq!(
            again.constants["taps"].initial_data(),
            HostData::U32(vec![10, 11, 12])
        );
    }

    #[test]
    fn a_bad_constants_table_names_file_line_and_key() {
        let s = spec(
            "[constants.taps]\ndtype = \"u32\"\nlen = 5\ninit = { kind = \"fill\", value = 1 }",
        )
        .expect("spec");
        let e = bank(&s).unwrap_err().to_string();
        assert!(e.starts_with("s.toml:6:"), "{e}");
        assert!(e.contains("constants.taps: 20 bytes (5 x u32)"), "{e}");
        assert!(e.contains("holds 16 bytes"), "{e}");
        let s = spec(
            "[constants.tapz]\ndtype = \"u32\"\nlen = 1\ninit = { kind = \"fill\", value = 1 }",
        )
        .expect("spec");
        let e = bank(&s).unwrap_err().to_string();
        assert!(e.contains("constants.tapz: the PTX (k.ptx) declares no .const variable tapz (it declares: scale, taps, unused)"), "{e}");
        let e = spec(
            "[constants.\"9x\"]\ndtype = \"u32\"\nlen = 1\ninit = { kind = \"fill\", value = 1 }",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("constants.9x: a constant is named by its PTX symbol"),
            "{e}"
        );
    }

    #[test]
    fn only_read_constants_without_any_initialiser_are_unset() {
        let module = crate::ptx::parse("k.ptx", PTX).expect("ptx");
        // taps is read and has no initialiser; scale has one; unused is never read
        assert_eq!(spec("").expect("spec").unset_constants(&module), ["taps"]);
        let set = spec(
            "[constants.taps]\ndtype = \"u8\"\nlen = 1\ninit = { kind = \"fill\", value = 1 }",
        )
        .expect("spec");
        assert!(set.unset_constants(&module).is_empty());
    }

    #[test]
    fn the_template_offers_a_table_for_each_unset_constant() {
        let module = crate::ptx::parse("k.ptx", PTX).expect("ptx");
        let t = crate::launch::spec_template("k.ptx", "k.ptx", &module, &[]).expect("template");
        // the declaration says .b8; the loads say u32
        assert!(
            t.contains("# [constants.taps]\n# dtype = \"u32\"\n# len = 4\n"),
            "{t}"
        );
        assert!(t.contains("cudaMemcpyToSymbol(taps, ...)"), "{t}");
        assert!(
            !t.contains("constants.scale") && !t.contains("constants.unused"),
            "{t}"
        );
        // uncommented (with data of its own) it loads and is written
        let text = t
            .replace("# [constants.taps]", "[constants.taps]")
            .replace("# dtype = \"u32\"", "dtype = \"u8\"")
            .replace("# len = 4", "len = 16")
            .replace(
                "# init = { kind = \"npy\", path = \"taps.npy\" }",
                "init = { kind = \"fill\", value = 2 }",
            );
        let files = MemFiles::new("mem").with("k.ptx", PTX.as_bytes());
        let s =
            LaunchSpec::parse("t.toml", &text, &files).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(s.unset_constants(&module).is_empty());
        let consts = bank(&s).expect("written");
        assert_eq!(
            consts.read_u32(consts.address_of("taps").unwrap()).unwrap(),
            0x0202_0202
        );
    }
}
