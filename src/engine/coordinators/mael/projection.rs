//! A 2-D picture of a pool's vectors: the projection on their first two
//! principal components (power iteration on the covariance, deflated for
//! the second), for the pool inspector's scatter plot.

use crate::engine::model::embed::dot;

/// The unit direction of largest variance of the centred `rows` that is
/// orthogonal to `skip` (if given).
fn principal(rows: &[Vec<f32>], dims: usize, skip: Option<&[f32]>) -> Vec<f32> {
    let mut v: Vec<f32> = (0..dims)
        .map(|i| ((i * 7919 + 13) % 97) as f32 / 97.0 - 0.5)
        .collect();
    for _ in 0..60 {
        let mut next = vec![0.0f32; dims];
        for r in rows {
            let p = dot(r, &v);
            for (n, x) in next.iter_mut().zip(r) {
                *n += p * x;
            }
        }
        if let Some(s) = skip {
            let p = dot(&next, s);
            for (n, x) in next.iter_mut().zip(s) {
                *n -= p * x;
            }
        }
        let norm = dot(&next, &next).sqrt();
        if norm == 0.0 || !norm.is_finite() {
            break;
        }
        v = next.into_iter().map(|x| x / norm).collect();
    }
    v
}

/// (x, y) of every vector on the first two principal components.
pub fn pca2(vectors: &[&[f32]]) -> Vec<(f32, f32)> {
    let Some(first) = vectors.first() else {
        return Vec::new();
    };
    let dims = first.len();
    let n = vectors.len() as f32;
    let mut mean = vec![0.0f32; dims];
    for v in vectors {
        for (m, x) in mean.iter_mut().zip(v.iter()) {
            *m += x / n;
        }
    }
    let rows: Vec<Vec<f32>> = vectors
        .iter()
        .map(|v| v.iter().zip(&mean).map(|(x, m)| x - m).collect())
        .collect();
    let a = principal(&rows, dims, None);
    let b = principal(&rows, dims, Some(&a));
    rows.iter().map(|r| (dot(r, &a), dot(r, &b))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_spread_along_their_main_directions() {
        // Points along x (spread 10) and y (spread 2) in 3-D, z constant.
        let pts: Vec<Vec<f32>> = (0..20)
            .map(|i| vec![(i as f32 - 10.0), ((i % 4) as f32 - 1.5) * 0.5, 1.0])
            .collect();
        let refs: Vec<&[f32]> = pts.iter().map(Vec::as_slice).collect();
        let p = pca2(&refs);
        assert_eq!(p.len(), 20);
        let spread = |f: fn(&(f32, f32)) -> f32| {
            let xs: Vec<f32> = p.iter().map(f).collect();
            xs.iter().cloned().fold(f32::MIN, f32::max)
                - xs.iter().cloned().fold(f32::MAX, f32::min)
        };
        assert!((spread(|q| q.0) - 19.0).abs() < 0.5, "the first axis is x");
        assert!((spread(|q| q.1) - 1.5).abs() < 0.3, "the second is y");
        assert!(pca2(&[]).is_empty());
    }
}
