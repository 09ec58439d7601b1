package analysis

import (
	"math"
)

// lstsq fits y ≈ X·β by least squares through a Householder QR of the
// column-scaled design matrix X (rows of p columns). It returns β, the
// standard error of each coefficient, the residual sum of squares, and
// false when X is rank deficient or has no residual degrees of freedom.
func lstsq(X [][]float64, y []float64) (beta, se []float64, rss float64, ok bool) {
	n, p := len(X), len(X[0])
	if n <= p {
		return nil, nil, 0, false
	}
	scale := make([]float64, p)
	a := make([][]float64, n)
	for i := range X {
		for j, v := range X[i] {
			scale[j] = math.Max(scale[j], math.Abs(v))
		}
	}
	for i := range X {
		a[i] = make([]float64, p+1)
		for j, v := range X[i] {
			if scale[j] == 0 {
				return nil, nil, 0, false
			}
			a[i][j] = v / scale[j]
		}
		a[i][p] = y[i]
	}
	// Householder: transform a (with y as its last column) in place.
	for k := 0; k < p; k++ {
		norm := 0.0
		for i := k; i < n; i++ {
			norm += a[i][k] * a[i][k]
		}
		norm = math.Sqrt(norm)
		if norm < 1e-12 {
			return nil, nil, 0, false
		}
		if a[k][k] > 0 {
			norm = -norm
		}
		v := make([]float64, n)
		for i := k; i < n; i++ {
			v[i] = a[i][k]
		}
		v[k] -= norm
		vv := 0.0
		for i := k; i < n; i++ {
			vv += v[i] * v[i]
		}
		for j := k; j <= p; j++ {
			dot := 0.0
			for i := k; i < n; i++ {
				dot += v[i] * a[i][j]
			}
			f := 2 * dot / vv
			for i := k; i < n; i++ {
				a[i][j] -= f * v[i]
			}
		}
	}
	for i := p; i < n; i++ {
		rss += a[i][p] * a[i][p]
	}
	// R is a[:p][:p]; solve R·b = Qᵀy and invert R for the covariance.
	rinv := make([][]float64, p)
	for i := range rinv {
		rinv[i] = make([]float64, p)
	}
	for j := p - 1; j >= 0; j-- {
		if math.Abs(a[j][j]) < 1e-12 {
			return nil, nil, 0, false
		}
		rinv[j][j] = 1 / a[j][j]
		for i := j - 1; i >= 0; i-- {
			s := 0.0
			for k := i + 1; k <= j; k++ {
				s += a[i][k] * rinv[k][j]
			}
			rinv[i][j] = -s / a[i][i]
		}
	}
	sigma2 := rss / float64(n-p)
	beta, se = make([]float64, p), make([]float64, p)
	for i := 0; i < p; i++ {
		var b, v float64
		for k := i; k < p; k++ {
			b += rinv[i][k] * a[k][p]
			v += rinv[i][k] * rinv[i][k]
		}
		beta[i] = b / scale[i]
		se[i] = math.Sqrt(sigma2*v) / scale[i]
	}
	return beta, se, rss, true
}

// studentTQuantile returns the q-quantile of Student's t distribution
// with df degrees of freedom, by bisection on its CDF.
func studentTQuantile(q, df float64) float64 {
	lo, hi := -1e3, 1e3
	for range 200 {
		mid := (lo + hi) / 2
		if studentTCDF(mid, df) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// studentTCDF is P(T ≤ t) for Student's t with df degrees of freedom.
func studentTCDF(t, df float64) float64 {
	x := df / (df + t*t)
	tail := 0.5 * regIncBeta(df/2, 0.5, x)
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// regIncBeta is the regularised incomplete beta function I_x(a, b),
// from its continued fraction (Lentz's method).
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x > (a+1)/(a+b+2) {
		return 1 - regIncBeta(b, a, 1-x)
	}
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	for m := 1; m < 300; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		for step := 0; step < 2; step++ {
			d = 1 + num*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + num/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			f *= c * d
			num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		}
		if math.Abs(c*d-1) < 1e-15 {
			break
		}
	}
	return front * f / a
}
