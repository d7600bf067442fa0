//! Integration test: launch spec → device memory → param space → read-back → `.npy` dump.

use regwatt_sim::launch::{dump_dir, read_npy_file, HostData, LaunchSpec};
use regwatt_sim::mem::{
    classify_generic, to_generic, GlobalMemory, MemError, MemSpace, ParamSpace, SharedLayout,
    SharedMemory, Space, GLOBAL_BASE,
};

use crate::support::conv;
use conv::{conv3x3_params, testdata};

#[test]
fn spec_to_memory_to_dump() {
    let spec = LaunchSpec::load(&testdata().join("conv.toml")).unwrap();
    let mut g = GlobalMemory::new();
    let addrs = g.alloc_buffers(&spec.initial_buffers()).unwrap();
    // Name order: idx, img, out, w.
    assert_eq!(addrs["idx"], GLOBAL_BASE);
    assert!(
        addrs["idx"] < addrs["img"] && addrs["img"] < addrs["out"] && addrs["out"] < addrs["w"]
    );
    let params = conv3x3_params();
    let pb = spec.param_block(0, &params, &|n| g.address_of(n)).unwrap();
    let p = ParamSpace::new(pb.bytes);
    // A "kernel": out[i] = img[i] * w[0] for i < W, reading pointers from param space.
    let img = p.read_u64(0).unwrap();
    let w = p.read_u64(8).unwrap();
    let out = p.read_u64(16).unwrap();
    let n = p.read_u32(24).unwrap() as u64;
    assert_eq!((img, w, out), (addrs["img"], addrs["w"], addrs["out"]));
    let w0 = g.read_f32(w).unwrap();
    for i in 0..n {
        let v = g.read_f32(img + 4 * i).unwrap();
        g.write_f32(out + 4 * i, v * w0).unwrap();
    }
    // Writing one element past `w` (9 floats) faults.
    assert!(matches!(
        g.write_f32(w + 36, 0.0),
        Err(MemError::Unmapped { .. })
    ));
    let back = g.read_back_all();
    let HostData::F32(imgv) = &spec.initial_buffers()["img"] else {
        panic!("dtype")
    };
    let HostData::F32(outv) = &back["out"] else {
        panic!("dtype")
    };
    for i in 0..64 {
        assert_eq!(outv[i], imgv[i] * 0.5);
    }
    assert_eq!(outv[64], 0.0);
    let tmp = std::env::temp_dir().join(format!("regwatt-mem-model-{}", std::process::id()));
    dump_dir(&tmp, &back).unwrap();
    assert_eq!(read_npy_file(&tmp.join("out.npy")).unwrap(), back["out"]);
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn shared_memory_through_generic_addresses() {
    let layout = SharedLayout::new(&[("tile", 64, 4)], 16);
    let mut s = SharedMemory::new(layout.total_bytes(32));
    let gen = to_generic(Space::Shared, layout.offsets["tile"] + 8);
    let (space, a) = classify_generic(gen);
    assert_eq!(space, Space::Shared);
    s.write_u32(a, 42).unwrap();
    assert_eq!(s.read_u32(8).unwrap(), 42);
    assert_eq!(
        s.atomic_u32(layout.dynamic_offset + 28, |x| x + 1).unwrap(),
        0
    );
    assert!(s.read_u32(layout.dynamic_offset + 32).is_err());
}
