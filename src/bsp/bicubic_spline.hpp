// The interpolating bicubic tensor-product spline of FITPACK (P. Dierckx), as
// scipy.interpolate.RectBivariateSpline(x, y, z) builds it with its defaults (kx = ky = 3,
// s = 0) and evaluates it at one point (RectBivariateSpline.__call__ -> bispev).
//
// Follows, from FITPACK (scipy/interpolate/fitpack/):
//  - regrid.f / fpregr.f, the s = 0 branch: nx = mx + kx + 1 knots, kx + 1 = 4 coincident
//    boundary knots at x(1) and x(mx), interior knots tx(kx+2 ...) = x(kx/2 + 2 ...), i.e. the
//    data points x[2] .. x[mx-3] (the "not-a-knot" choice); the spline interpolates z.
//    fpgrre.f solves the least-squares problem with Givens rotations; for s = 0 the system is
//    square and non-singular, so its solution is the interpolant, which this class computes
//    by solving the two collocation systems (Gaussian elimination with partial pivoting).
//    The coefficients agree with FITPACK's to rounding (~1e-15 relative).
//  - fpbisp.f (bispev): an argument outside [tx(kx+1), tx(nx-kx)] is clamped to that
//    boundary (constant extrapolation), the knot interval is found by a forward scan, the
//    B-spline values come from fpbspl.f (de Boor-Cox), and the sum runs over the x
//    B-splines outside, the y B-splines inside, in fpbisp's order.
// Verified against python3-scipy on and between the grid points and outside it
// (tests/bsp/compare_spline_with_scipy.py, a ctest).
#pragma once

#include <array>
#include <vector>

namespace kubesim::bsp {

class BicubicSpline {
 public:
  // x (size mx >= 4) and y (size my >= 4) strictly increasing; z row-major mx x my,
  // z[i * my + j] = value at (x[i], y[j]). Throws std::invalid_argument otherwise.
  BicubicSpline(std::vector<double> x, std::vector<double> y, const std::vector<double>& z);

  double operator()(double x, double y) const;

  // The B-spline coefficients, row-major (mx x my), as RectBivariateSpline.get_coeffs().
  const std::vector<double>& coefficients() const { return coefficients_; }
  const std::vector<double>& x_knots() const { return tx_; }
  const std::vector<double>& y_knots() const { return ty_; }

  // One axis of an evaluation: the index of the first non-zero B-spline and the four values
  // (fpbisp's lx(i) and wx(i, .)).
  struct AxisWeights {
    int first = 0;
    std::array<double, 4> values{};
  };
  static AxisWeights axis_weights(const std::vector<double>& knots, double arg);
  // fpbisp's sum for one point from both axes' weights.
  double combine(const AxisWeights& wx, const AxisWeights& wy) const;

 private:
  std::vector<double> tx_, ty_;
  std::vector<double> coefficients_;  // mx x my, row-major
  int nky1_ = 0;                      // coefficients per x row (= my)
};

}  // namespace kubesim::bsp
