//! Reads the integer-codes file the `fit_codes` and `fit_share` examples time fits on (what
//! `python benchmarks/write_codes.py` writes): the first line holds the domain sizes, every other
//! line a row's codes then its label (0 or 1), separated by single spaces.

/// A codes file: its domain sizes, one column of codes per feature, and the labels.
pub struct Codes {
    pub sizes: Vec<u32>,
    pub cols: Vec<Vec<u32>>,
    pub labels: Vec<bool>,
}

/// Reads `path`; panics with the file's name on a malformed file (these are timing examples).
pub fn read_codes(path: &str) -> Codes {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("codes file {path}: {e}"));
    let mut lines = text.lines();
    let sizes: Vec<u32> = lines.next().expect("a header line").split(' ').map(|s| s.parse().unwrap()).collect();
    let m = sizes.len();
    let mut cols: Vec<Vec<u32>> = vec![Vec::new(); m];
    let mut labels = Vec::new();
    for l in lines {
        let v: Vec<u32> = l.split(' ').map(|s| s.parse().unwrap()).collect();
        for f in 0..m {
            cols[f].push(v[f]);
        }
        labels.push(v[m] == 1);
    }
    Codes { sizes, cols, labels }
}
