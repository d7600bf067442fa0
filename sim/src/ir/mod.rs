//! The decoded intermediate representation of a PTX module, built for a fast interpreter.
//!
//! See `README.md` in this folder for the guide written for the executor. Entry point:
//! [`crate::ptx::parse`] → [`Module`]; each [`Function`] carries its instructions and its
//! [`Cfg`] (basic blocks, successors/predecessors, dominators, immediate post-dominators =
//! SIMT reconvergence points, natural loops).

pub mod cfg;
pub mod inline;
pub mod instr;
pub mod types;

pub use cfg::{Block, Cfg, Loop, RegionScratch};
pub use instr::{
    Addr, AddrBase, CallInfo, CallTarget, Guard, Instr, Mods, Opcode, Operand, Reg, Sym,
};
pub use types::{AtomOp, BoolOp, Cmp, Dim, Mode, RegClass, Round, Space, Sreg, Ty};

/// A parsed PTX module (one `.ptx` file).
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// `.version major.minor` (PTX ISA §11.1.1).
    pub version: (u32, u32),
    /// `.target` entries, e.g. `["sm_75"]` (§11.1.2).
    pub target: Vec<String>,
    /// `.address_size` in bits, 32 or 64 (§11.1.3; default 32 when absent).
    pub address_size: u32,
    /// Module-scope `.global`, `.const`, `.shared` and `.local` variables.
    pub globals: Vec<Var>,
    /// Every `.entry` and `.func`, in source order (declarations without bodies included, with
    /// an empty `instrs` and `defined == false`).
    pub functions: Vec<Function>,
}

impl Module {
    /// Looks a function up by name.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The index of a function by name.
    pub fn function_index(&self, name: &str) -> Option<u32> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| i as u32)
    }

    /// The `.entry` functions (kernels), in source order.
    pub fn kernels(&self) -> impl Iterator<Item = &Function> {
        self.functions.iter().filter(|f| f.is_kernel)
    }

    /// Looks a module-scope variable up by name.
    pub fn global(&self, name: &str) -> Option<&Var> {
        self.globals.iter().find(|g| g.name == name)
    }
}

/// A function parameter (kernel `.param`, or `.func` parameter/return value).
/// Layout per PTX ISA §5.1.6 (kernel parameters) and the CUDA ABI: each parameter at the next
/// multiple of its alignment.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    /// Element type (`.u64`, `.b8` for byte arrays of structs).
    pub ty: Ty,
    /// Number of elements (1 unless declared `name[N]`).
    pub count: u32,
    /// Total size in bytes (`ty.size() * count`).
    pub size: u32,
    /// Alignment in bytes (`.align N`, else the element size).
    pub align: u32,
    /// Byte offset in the parameter buffer.
    pub offset: u32,
    /// `.ptr.SPACE.align N` attribute of kernel pointer parameters (§5.1.6.1).
    pub ptr: Option<PtrAttr>,
    /// True for `.reg`-space function parameters (`.func f(.reg .u32 a)`).
    pub is_reg: bool,
}

/// The `.ptr` attribute of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PtrAttr {
    pub space: Space,
    pub align: u32,
}

/// A variable in some state space: module-scope globals/consts/shared, or function-scope
/// `.local`/`.shared`/`.param` (PTX ISA §5.4).
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub space: Space,
    pub ty: Ty,
    /// Total size in bytes; 0 for `.extern .shared` dynamic arrays (`name[]`).
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
    /// Initial bytes (little-endian, `size` long) if the declaration had an initialiser.
    /// Symbol addresses in initialisers are not supported (parse error).
    pub init: Option<Vec<u8>>,
    /// `.extern` (for `.shared`: the dynamically sized shared array).
    pub is_extern: bool,
    /// `.visible` / `.weak` / `.common` linkage.
    pub visible: bool,
}

/// A declared virtual register.
#[derive(Clone, Debug, PartialEq)]
pub struct RegDecl {
    /// PTX name (`%r12`, or a named register).
    pub name: String,
    /// Declared type.
    pub ty: Ty,
}

impl RegDecl {
    /// Storage class (predicate / 16 / 32 / 64 / 128 bit).
    pub fn class(&self) -> RegClass {
        self.ty.class()
    }
}

/// Performance-tuning directives of a function (PTX ISA §11.4).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tuning {
    pub maxntid: Option<[u32; 3]>,
    pub reqntid: Option<[u32; 3]>,
    pub minnctapersm: Option<u32>,
    pub maxnreg: Option<u32>,
    /// Source line of the `.maxntid` directive (0 without one), for messages.
    pub maxntid_line: u32,
    /// Source line of the `.reqntid` directive (0 without one), for messages.
    pub reqntid_line: u32,
}

/// One `.entry` or `.func`.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    /// `.entry` (kernel) rather than `.func`.
    pub is_kernel: bool,
    /// Has a body (false for prototypes / `.extern .func`).
    pub defined: bool,
    pub params: Vec<Param>,
    /// Return parameters of a `.func` (`.func (.param .b32 r) f(...)`).
    pub rets: Vec<Param>,
    /// Size in bytes of the parameter buffer (`params` laid out by `offset`).
    pub param_bytes: u32,
    /// Virtual registers; [`Reg`] indexes this.
    pub regs: Vec<RegDecl>,
    /// Function-scope variables (`.local`, `.shared`, call-sequence `.param`); `Sym::Local`.
    pub vars: Vec<Var>,
    /// The instructions. Branch targets index this vector.
    pub instrs: Vec<Instr>,
    /// Label name → instruction index.
    pub labels: std::collections::BTreeMap<String, u32>,
    pub tuning: Tuning,
    /// The strings of the `.pragma` directives in the body, in source order (PTX ISA §11.6;
    /// `nounroll` is also recorded on its instruction). A design may read its own annotations
    /// here (Elango 2017's L-register directive, `designs/src/lreg`).
    pub pragmas: Vec<String>,
    /// Control-flow graph of `instrs`.
    pub cfg: Cfg,
}

impl Function {
    /// Bytes of function-scope `.shared` variables (static shared memory).
    pub fn shared_bytes(&self) -> u32 {
        layout_bytes(self.vars.iter().filter(|v| v.space == Space::Shared))
    }

    /// Bytes of function-scope `.local` variables (the per-thread stack frame declared in PTX).
    pub fn local_bytes(&self) -> u32 {
        layout_bytes(self.vars.iter().filter(|v| v.space == Space::Local))
    }

    /// A parameter by name.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// Bytes needed to lay `vars` out one after another, each aligned.
pub fn layout_bytes<'a>(vars: impl Iterator<Item = &'a Var>) -> u32 {
    let mut off: u64 = 0;
    for v in vars {
        let a = u64::from(v.align.max(1));
        off = off.div_ceil(a) * a + u64::from(v.size);
    }
    u32::try_from(off).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_aligns() {
        let v = |size, align| Var {
            name: String::new(),
            space: Space::Shared,
            ty: Ty::B8,
            size,
            align,
            init: None,
            is_extern: false,
            visible: false,
        };
        let vs = [v(3, 1), v(8, 8), v(4, 4)];
        assert_eq!(layout_bytes(vs.iter()), 20);
    }
}
