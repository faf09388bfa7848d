//! The global allocator of the extension: every allocation goes to the allocator of the Python
//! polars that loaded it (the `polars.polars._allocator` capsule), as Polars requires of an
//! expression plugin, since buffers the plugin allocates are freed by Polars and the other way
//! round. Written out as pyo3-polars' `PolarsAllocator` is, so the build does not need
//! pyo3-polars (which pulls in `polars-core` and the `polars` crate).
//!
//! Invariant: the capsule is looked up once per process (the first allocation, or two racing
//! first allocations that find the same capsule); without an initialized Python or without the
//! capsule (polars not importable) every allocation goes to the system allocator. The lookup
//! itself allocates nothing.
//!
//! Imports: no module of the crate.

use pyo3::ffi::{PyCapsule_Import, PyErr_Clear, Py_IsInitialized};
use pyo3::Python;
use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::c_char;
use std::sync::atomic::{AtomicPtr, Ordering};

/// The capsule's layout (Polars' `AllocatorCapsule`, `#[repr(C)]` on both sides).
#[repr(C)]
struct AllocatorCapsule {
    alloc: unsafe extern "C" fn(usize, usize) -> *mut u8,
    dealloc: unsafe extern "C" fn(*mut u8, usize, usize),
    alloc_zeroed: unsafe extern "C" fn(usize, usize) -> *mut u8,
    realloc: unsafe extern "C" fn(*mut u8, usize, usize, usize) -> *mut u8,
}

unsafe extern "C" fn system_alloc(size: usize, align: usize) -> *mut u8 {
    System.alloc(Layout::from_size_align_unchecked(size, align))
}

unsafe extern "C" fn system_dealloc(ptr: *mut u8, size: usize, align: usize) {
    System.dealloc(ptr, Layout::from_size_align_unchecked(size, align))
}

unsafe extern "C" fn system_alloc_zeroed(size: usize, align: usize) -> *mut u8 {
    System.alloc_zeroed(Layout::from_size_align_unchecked(size, align))
}

unsafe extern "C" fn system_realloc(ptr: *mut u8, size: usize, align: usize, new_size: usize) -> *mut u8 {
    System.realloc(ptr, Layout::from_size_align_unchecked(size, align), new_size)
}

static SYSTEM: AllocatorCapsule = AllocatorCapsule {
    alloc: system_alloc,
    dealloc: system_dealloc,
    alloc_zeroed: system_alloc_zeroed,
    realloc: system_realloc,
};

const CAPSULE_NAME: &[u8] = b"polars.polars._allocator\0";

/// Relays allocations to Python polars' allocator (see the module docs).
pub struct PolarsAllocator(AtomicPtr<AllocatorCapsule>);

impl PolarsAllocator {
    pub const fn new() -> Self {
        PolarsAllocator(AtomicPtr::new(std::ptr::null_mut()))
    }

    /// The capsule in use: looked up on first use (allocating nothing, or this recurses).
    #[inline]
    fn capsule(&self) -> &'static AllocatorCapsule {
        let known = self.0.load(Ordering::Acquire);
        if !known.is_null() {
            // SAFETY: only pointers to 'static capsules are stored.
            return unsafe { &*known };
        }
        self.look_up()
    }

    #[cold]
    fn look_up(&self) -> &'static AllocatorCapsule {
        // SAFETY: Py_IsInitialized may be called at any time; the import runs attached to the
        // interpreter, and a capsule Python hands out lives as long as the process.
        let found = (unsafe { Py_IsInitialized() } != 0)
            .then(|| {
                Python::attach(|_| unsafe {
                    let capsule = (PyCapsule_Import(CAPSULE_NAME.as_ptr() as *const c_char, 0) as *const AllocatorCapsule).as_ref();
                    if capsule.is_none() {
                        PyErr_Clear();
                    }
                    capsule
                })
            })
            .flatten()
            .unwrap_or(&SYSTEM);
        let new = found as *const AllocatorCapsule as *mut AllocatorCapsule;
        match self.0.compare_exchange(std::ptr::null_mut(), new, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => found,
            // SAFETY: as above; another thread stored its lookup first, and every thread must
            // use the one allocator.
            Err(first) => unsafe { &*first },
        }
    }
}

unsafe impl GlobalAlloc for PolarsAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        (self.capsule().alloc)(layout.size(), layout.align())
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        (self.capsule().dealloc)(ptr, layout.size(), layout.align())
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        (self.capsule().alloc_zeroed)(layout.size(), layout.align())
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        (self.capsule().realloc)(ptr, layout.size(), layout.align(), new_size)
    }
}
