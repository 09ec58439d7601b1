package benchcmp

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// lstsq fits y ≈ X·β by least squares through gonum's QR factorisation
// of the column-scaled design matrix X (rows of p columns). It returns β,
// the standard error of each coefficient, the residual sum of squares,
// and false when X is rank deficient or has no residual degrees of
// freedom.
func lstsq(X [][]float64, y []float64) (beta, se []float64, rss float64, ok bool) {
	n, p := len(X), len(X[0])
	if n <= p {
		return nil, nil, 0, false
	}
	// Scaling each column to a largest magnitude of 1 keeps the rank test
	// below meaningful whatever the columns' units (n against n²).
	scale := make([]float64, p)
	for _, row := range X {
		for j, v := range row {
			scale[j] = math.Max(scale[j], math.Abs(v))
		}
	}
	a := mat.NewDense(n, p, nil)
	for i, row := range X {
		for j, v := range row {
			if scale[j] == 0 {
				return nil, nil, 0, false
			}
			a.Set(i, j, v/scale[j])
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var full mat.Dense
	qr.RTo(&full)
	r := mat.NewTriDense(p, mat.Upper, nil)
	for i := range p {
		if math.Abs(full.At(i, i)) < 1e-12 {
			return nil, nil, 0, false
		}
		for j := i; j < p; j++ {
			r.SetTri(i, j, full.At(i, j))
		}
	}
	var b, fit mat.VecDense
	if err := qr.SolveVecTo(&b, false, mat.NewVecDense(n, y)); err != nil {
		return nil, nil, 0, false
	}
	fit.MulVec(a, &b)
	for i := range y {
		d := y[i] - fit.AtVec(i)
		rss += d * d
	}
	// The coefficients' covariance is σ²·(XᵀX)⁻¹ = σ²·R⁻¹R⁻ᵀ.
	var rinv mat.TriDense
	if err := rinv.InverseTri(r); err != nil {
		return nil, nil, 0, false
	}
	sigma2 := rss / float64(n-p)
	beta, se = make([]float64, p), make([]float64, p)
	for i := range p {
		v := 0.0
		for k := i; k < p; k++ {
			v += rinv.At(i, k) * rinv.At(i, k)
		}
		beta[i] = b.AtVec(i) / scale[i]
		se[i] = math.Sqrt(sigma2*v) / scale[i]
	}
	return beta, se, rss, true
}

// studentTQuantile returns the q-quantile of Student's t distribution
// with df degrees of freedom.
func studentTQuantile(q, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(q)
}
