//! The plugin's input columns, imported from Polars' C ABI as Arrow arrays (not as polars
//! Series: a Categorical or Enum column arrives as its dictionary, codes and categories, with
//! no cast and no copy), and read into the model's feature codes.
//!
//! Invariant: every row gets the code docs/semantics.md §1-2 give its value. A string feature
//! ([`StringFeature`]) reads the column itself, whatever holds its strings (String,
//! Categorical, Enum, or a Null column): a value equal to the k-th training value gets `k`, a
//! null the feature's null code, any other value the unseen code; a dictionary's categories
//! are looked up once per batch, its rows through that table; given a Categorical's codes with
//! the codes of the training values in it, rows go through that table. Any other feature reads an
//! unsigned integer code column without nulls (the encoders' expressions), borrowed when it is
//! one `u32` chunk. Any other dtype is an error naming the column, never a guess.
//!
//! Imports: `plugin_abi` (the imported [`Input`]) only.

use polars_arrow::array::{Array, DictionaryArray, DictionaryKey, PrimitiveArray, Utf8Array, Utf8ViewArray, View};
use polars_arrow::datatypes::ArrowDataType;
use polars_error::{polars_bail, polars_err, PolarsResult};
use crate::plugin_abi::Input;
use serde::Deserialize;

/// A string feature as the plugin reads it (sent in the kwargs): its training values in code
/// order (null not among them), the code of a null and the code of an unseen value.
#[derive(Deserialize)]
pub struct StringFeature {
    values: Vec<String>,
    null: u32,
    unseen: u32,
    /// When the input is a Categorical's codes (eager prediction, whose frame's dtype is known):
    /// the code of each training value in that Categorical.
    #[serde(default)]
    codes: Option<Vec<u32>>,
}

const EMPTY: u32 = u32::MAX;

/// An open-addressing table from 128-bit keys to codes (a few training values: built per batch).
struct Table {
    slots: Vec<(u128, u32)>,
    bits: u32,
}

impl Table {
    fn new(n: usize) -> Self {
        let size = (2 * n).next_power_of_two().max(8);
        Table { slots: vec![(0, EMPTY); size], bits: size.trailing_zeros() }
    }

    #[inline]
    fn slot(&self, key: u128) -> usize {
        let x = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    /// Inserts `key` unless present (a training value's first code wins; values are distinct).
    fn insert(&mut self, key: u128, value: u32) {
        let mask = self.slots.len() - 1;
        let mut s = self.slot(key);
        while self.slots[s].1 != EMPTY {
            if self.slots[s].0 == key {
                return;
            }
            s = (s + 1) & mask;
        }
        self.slots[s] = (key, value);
    }

    #[inline]
    fn get(&self, key: u128) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut s = self.slot(key);
        loop {
            let (k, v) = self.slots[s];
            if v == EMPTY {
                return None;
            }
            if k == key {
                return Some(v);
            }
            s = (s + 1) & mask;
        }
    }
}

/// The lookup of a string feature's codes. A string of at most 12 bytes is its Arrow view
/// (length and bytes inline, zero-padded), so one 128-bit comparison decides equality; a longer
/// one is found by its length and first 4 bytes, then compared in full.
struct StringCodes<'a> {
    short: Table,
    /// (length, prefix) of the long training values -> index into `long`.
    long_keys: Table,
    long: Vec<Vec<(&'a [u8], u32)>>,
    null: u32,
    unseen: u32,
}

fn long_key(length: u32, prefix: u32) -> u128 {
    length as u128 | (prefix as u128) << 32
}

impl<'a> StringCodes<'a> {
    fn new(f: &'a StringFeature) -> Self {
        let mut short = Table::new(f.values.len());
        let mut long_keys = Table::new(f.values.len());
        let mut long: Vec<Vec<(&[u8], u32)>> = Vec::new();
        for (code, v) in f.values.iter().enumerate() {
            let b = v.as_bytes();
            if b.len() <= View::MAX_INLINE_SIZE as usize {
                short.insert(View::new_inline(b).as_u128(), code as u32);
            } else {
                let key = long_key(b.len() as u32, u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                match long_keys.get(key) {
                    Some(i) => long[i as usize].push((b, code as u32)),
                    None => {
                        long_keys.insert(key, long.len() as u32);
                        long.push(vec![(b, code as u32)]);
                    }
                }
            }
        }
        StringCodes { short, long_keys, long, null: f.null, unseen: f.unseen }
    }

    fn code_of(&self, b: &[u8]) -> u32 {
        if b.len() <= View::MAX_INLINE_SIZE as usize {
            return self.short.get(View::new_inline(b).as_u128()).unwrap_or(self.unseen);
        }
        let key = long_key(b.len() as u32, u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        match self.long_keys.get(key) {
            None => self.unseen,
            Some(i) => self.long[i as usize].iter().find(|(v, _)| *v == b).map_or(self.unseen, |&(_, c)| c),
        }
    }

    /// Appends the codes of a String (view) array's rows.
    fn push_views(&self, arr: &Utf8ViewArray, out: &mut Vec<u32>) {
        let start = out.len();
        out.extend(arr.views().iter().enumerate().map(|(i, v)| {
            if v.length <= View::MAX_INLINE_SIZE {
                self.short.get(v.as_u128()).unwrap_or(self.unseen)
            } else {
                match self.long_keys.get(long_key(v.length, v.prefix)) {
                    None => self.unseen,
                    Some(k) => {
                        // SAFETY: i < arr.len() (the views are the array's).
                        let b = unsafe { arr.value_unchecked(i) }.as_bytes();
                        self.long[k as usize].iter().find(|(v, _)| *v == b).map_or(self.unseen, |&(_, c)| c)
                    }
                }
            }
        }));
        self.fill_nulls(arr.validity(), &mut out[start..]);
    }

    /// The codes of a string array's values (a dictionary's categories), nulls included.
    fn codes_of_values(&self, name: &str, values: &dyn Array) -> PolarsResult<Vec<u32>> {
        let mut out = Vec::with_capacity(values.len());
        let any = values.as_any();
        if let Some(a) = any.downcast_ref::<Utf8ViewArray>() {
            self.push_views(a, &mut out);
        } else if let Some(a) = any.downcast_ref::<Utf8Array<i64>>() {
            out.extend(a.iter().map(|v| v.map_or(self.null, |s| self.code_of(s.as_bytes()))));
        } else if let Some(a) = any.downcast_ref::<Utf8Array<i32>>() {
            out.extend(a.iter().map(|v| v.map_or(self.null, |s| self.code_of(s.as_bytes()))));
        } else {
            polars_bail!(ComputeError: "findrs: column {} has categories of type {:?}, not strings", name, values.dtype());
        }
        Ok(out)
    }

    fn fill_nulls(&self, validity: Option<&polars_arrow::bitmap::Bitmap>, out: &mut [u32]) {
        if let Some(valid) = validity {
            if valid.unset_bits() > 0 {
                for (o, ok) in out.iter_mut().zip(valid.iter()) {
                    if !ok {
                        *o = self.null;
                    }
                }
            }
        }
    }

    /// Appends the codes of a dictionary array's rows: its categories' codes, then a gather.
    fn push_dictionary<K: DictionaryKey>(&self, name: &str, arr: &DictionaryArray<K>, out: &mut Vec<u32>) -> PolarsResult<()> {
        let table = self.codes_of_values(name, arr.values().as_ref())?;
        let start = out.len();
        let keys = arr.keys();
        for &k in keys.values().iter() {
            let i: usize = k.try_into().unwrap_or(usize::MAX);
            // A null row's key may be anything; it is overwritten below.
            out.push(table.get(i).copied().unwrap_or(self.unseen));
        }
        self.fill_nulls(keys.validity(), &mut out[start..]);
        Ok(())
    }
}

/// The codes of one feature: borrowed from its column, or read into a vector.
pub enum Codes<'a> {
    Borrowed(&'a [u32]),
    Owned(Vec<u32>),
}

impl Codes<'_> {
    pub fn as_slice(&self) -> &[u32] {
        match self {
            Codes::Borrowed(s) => s,
            Codes::Owned(v) => v,
        }
    }
}

macro_rules! dictionary_keys {
    ($codes:expr, $name:expr, $chunk:expr, $out:expr, $($k:ty),*) => {{
        let any = $chunk.as_any();
        let mut done = false;
        $(
            if !done {
                if let Some(d) = any.downcast_ref::<DictionaryArray<$k>>() {
                    $codes.push_dictionary($name, d, $out)?;
                    done = true;
                }
            }
        )*
        done
    }};
}

/// The codes of a string feature given as a Categorical's codes: each training value's code in
/// that Categorical becomes its training code, any other code is unseen, a null is null.
fn categorical_codes(input: &Input, feature: &StringFeature, codes: &[u32]) -> PolarsResult<Vec<u32>> {
    // A dense table up to 2^16 codes, a hash table beyond (a process may hold many categories).
    let max = codes.iter().copied().max().map_or(0, |m| m as usize + 1);
    let dense: Option<Vec<u32>> = (max <= 1 << 16).then(|| {
        let mut t = vec![feature.unseen; max];
        for (code, &c) in codes.iter().enumerate().rev() {
            t[c as usize] = code as u32;
        }
        t
    });
    let mut table = Table::new(codes.len());
    if dense.is_none() {
        for (code, &c) in codes.iter().enumerate() {
            table.insert(c as u128, code as u32);
        }
    }
    let map = |c: u32| match &dense {
        Some(t) => t.get(c as usize).copied().unwrap_or(feature.unseen),
        None => table.get(c as u128).unwrap_or(feature.unseen),
    };
    let mut out = Vec::with_capacity(input.chunks.iter().map(|c| c.len()).sum());
    for chunk in &input.chunks {
        let start = out.len();
        let any = chunk.as_any();
        if let Some(a) = any.downcast_ref::<PrimitiveArray<u32>>() {
            out.extend(a.values().iter().map(|&c| map(c)));
        } else if let Some(a) = any.downcast_ref::<PrimitiveArray<u16>>() {
            out.extend(a.values().iter().map(|&c| map(c as u32)));
        } else if let Some(a) = any.downcast_ref::<PrimitiveArray<u8>>() {
            out.extend(a.values().iter().map(|&c| map(c as u32)));
        } else {
            polars_bail!(ComputeError: "findrs: column {} must hold a Categorical's codes, got {:?}", input.name, input.dtype);
        }
        if let Some(valid) = chunk.validity() {
            if valid.unset_bits() > 0 {
                for (o, ok) in out[start..].iter_mut().zip(valid.iter()) {
                    if !ok {
                        *o = feature.null;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The codes of a string feature's column (see the module docs).
pub fn string_codes(input: &Input, feature: &StringFeature) -> PolarsResult<Vec<u32>> {
    if let Some(codes) = &feature.codes {
        return categorical_codes(input, feature, codes);
    }
    let codes = StringCodes::new(feature);
    let n: usize = input.chunks.iter().map(|c| c.len()).sum();
    let mut out = Vec::with_capacity(n);
    for chunk in &input.chunks {
        let any = chunk.as_any();
        if let Some(a) = any.downcast_ref::<Utf8ViewArray>() {
            codes.push_views(a, &mut out);
        } else if let Some(a) = any.downcast_ref::<Utf8Array<i64>>() {
            out.extend(a.iter().map(|v| v.map_or(codes.null, |s| codes.code_of(s.as_bytes()))));
        } else if chunk.dtype() == &ArrowDataType::Null {
            out.extend(std::iter::repeat_n(codes.null, chunk.len()));
        } else if !dictionary_keys!(codes, &input.name, chunk, &mut out, u8, u16, u32, u64, i8, i16, i32, i64) {
            polars_bail!(
                ComputeError: "findrs: column {} holds {:?}, but its feature's values are strings: cast it with pl.col({:?}).cast(pl.String)",
                input.name, input.dtype, input.name.as_str()
            );
        }
    }
    Ok(out)
}

/// The codes of a code column: unsigned integers without nulls (borrowed when one `u32` chunk).
pub fn code_column(input: &Input) -> PolarsResult<Codes<'_>> {
    let bad = || polars_err!(ComputeError: "findrs: column {} must hold unsigned integer codes, got {:?}", input.name, input.dtype);
    if input.chunks.iter().any(|c| c.null_count() > 0) {
        polars_bail!(ComputeError: "findrs: code column {} has nulls", input.name);
    }
    if let [chunk] = input.chunks.as_slice() {
        if let Some(a) = chunk.as_any().downcast_ref::<PrimitiveArray<u32>>() {
            return Ok(Codes::Borrowed(a.values().as_slice()));
        }
    }
    let mut out = Vec::with_capacity(input.chunks.iter().map(|c| c.len()).sum());
    for chunk in &input.chunks {
        let any = chunk.as_any();
        if let Some(a) = any.downcast_ref::<PrimitiveArray<u32>>() {
            out.extend_from_slice(a.values().as_slice());
        } else if let Some(a) = any.downcast_ref::<PrimitiveArray<u16>>() {
            out.extend(a.values().iter().map(|&v| v as u32));
        } else if let Some(a) = any.downcast_ref::<PrimitiveArray<u8>>() {
            out.extend(a.values().iter().map(|&v| v as u32));
        } else {
            return Err(bad());
        }
    }
    Ok(Codes::Owned(out))
}
