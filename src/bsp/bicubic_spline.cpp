#include "bsp/bicubic_spline.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace kubesim::bsp {
namespace {

constexpr int kDegree = 3;  // kx = ky = 3

// fpregr.f, s = 0: kx+1 boundary knots at each end, interior knots at x[2] .. x[m-3].
std::vector<double> interpolation_knots(const std::vector<double>& x) {
  const std::size_t m = x.size();
  std::vector<double> t;
  t.reserve(m + kDegree + 1);
  for (int i = 0; i <= kDegree; ++i) t.push_back(x.front());
  for (std::size_t j = 2; j + 2 < m; ++j) t.push_back(x[j]);  // k3 = kx/2 = 1: x(k3+2) on (1-based)
  for (int i = 0; i <= kDegree; ++i) t.push_back(x.back());
  return t;
}

void check_axis(const std::vector<double>& v, const char* name) {
  if (v.size() < kDegree + 1) throw std::invalid_argument(std::string("spline needs at least 4 points along ") + name);
  for (std::size_t i = 1; i < v.size(); ++i)
    if (!(v[i] > v[i - 1])) throw std::invalid_argument(std::string("spline points along ") + name + " must increase strictly");
}

// The square collocation matrix a[i][j] = B_j(points[i]).
std::vector<double> collocation_matrix(const std::vector<double>& knots, const std::vector<double>& points) {
  const std::size_t m = points.size();
  std::vector<double> a(m * m, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    const auto w = BicubicSpline::axis_weights(knots, points[i]);
    for (int r = 0; r <= kDegree; ++r) a[i * m + static_cast<std::size_t>(w.first + r)] = w.values[static_cast<std::size_t>(r)];
  }
  return a;
}

// Solves a * X = b in place for `columns` right-hand sides (b is m x columns, row-major), by
// Gaussian elimination with partial pivoting.
void solve_in_place(std::vector<double> a, std::size_t m, std::vector<double>& b, std::size_t columns) {
  for (std::size_t p = 0; p < m; ++p) {
    std::size_t pivot = p;
    for (std::size_t r = p + 1; r < m; ++r)
      if (std::fabs(a[r * m + p]) > std::fabs(a[pivot * m + p])) pivot = r;
    if (a[pivot * m + p] == 0.0) throw std::invalid_argument("singular spline collocation matrix");
    if (pivot != p) {
      for (std::size_t c = 0; c < m; ++c) std::swap(a[p * m + c], a[pivot * m + c]);
      for (std::size_t c = 0; c < columns; ++c) std::swap(b[p * columns + c], b[pivot * columns + c]);
    }
    for (std::size_t r = p + 1; r < m; ++r) {
      const double factor = a[r * m + p] / a[p * m + p];
      if (factor == 0.0) continue;
      for (std::size_t c = p; c < m; ++c) a[r * m + c] -= factor * a[p * m + c];
      for (std::size_t c = 0; c < columns; ++c) b[r * columns + c] -= factor * b[p * columns + c];
    }
  }
  for (std::size_t p = m; p-- > 0;) {
    for (std::size_t c = 0; c < columns; ++c) {
      double v = b[p * columns + c];
      for (std::size_t k = p + 1; k < m; ++k) v -= a[p * m + k] * b[k * columns + c];
      b[p * columns + c] = v / a[p * m + p];
    }
  }
}

}  // namespace

BicubicSpline::AxisWeights BicubicSpline::axis_weights(const std::vector<double>& t, double arg) {
  // fpbisp.f: clamp to [t(k+1), t(n-k)], then scan l forward while arg >= t(l+1) and l < n-k-1
  // (1-based); here 0-based l runs from k to n-k-2.
  const int n = static_cast<int>(t.size());
  const double tb = t[kDegree];
  const double te = t[static_cast<std::size_t>(n - kDegree - 1)];
  if (arg < tb) arg = tb;
  if (arg > te) arg = te;
  int l = kDegree;
  while (!(arg < t[static_cast<std::size_t>(l + 1)] || l == n - kDegree - 2)) ++l;
  // fpbspl.f: the k+1 non-zero B-splines at arg by de Boor-Cox, in its operation order.
  AxisWeights out;
  auto& h = out.values;
  std::array<double, 4> hh{};
  h[0] = 1.0;
  for (int j = 1; j <= kDegree; ++j) {
    for (int i = 0; i < j; ++i) hh[static_cast<std::size_t>(i)] = h[static_cast<std::size_t>(i)];
    h[0] = 0.0;
    for (int i = 1; i <= j; ++i) {
      const double tli = t[static_cast<std::size_t>(l + i)];
      const double tlj = t[static_cast<std::size_t>(l + i - j)];
      if (tli == tlj) {
        h[static_cast<std::size_t>(i)] = 0.0;
        continue;
      }
      const double f = hh[static_cast<std::size_t>(i - 1)] / (tli - tlj);
      h[static_cast<std::size_t>(i - 1)] = h[static_cast<std::size_t>(i - 1)] + f * (tli - arg);
      h[static_cast<std::size_t>(i)] = f * (arg - tlj);
    }
  }
  out.first = l - kDegree;
  return out;
}

BicubicSpline::BicubicSpline(std::vector<double> x, std::vector<double> y, const std::vector<double>& z) {
  check_axis(x, "x");
  check_axis(y, "y");
  const std::size_t mx = x.size(), my = y.size();
  if (z.size() != mx * my) throw std::invalid_argument("spline values must form an mx x my grid");
  tx_ = interpolation_knots(x);
  ty_ = interpolation_knots(y);
  nky1_ = static_cast<int>(my);
  // z = Ax C Ay^T: first W = Ax^-1 z (columns of z), then C^T = Ay^-1 W^T (rows of W).
  std::vector<double> w = z;
  solve_in_place(collocation_matrix(tx_, x), mx, w, my);
  std::vector<double> wt(my * mx);
  for (std::size_t i = 0; i < mx; ++i)
    for (std::size_t j = 0; j < my; ++j) wt[j * mx + i] = w[i * my + j];
  solve_in_place(collocation_matrix(ty_, y), my, wt, mx);
  coefficients_.resize(mx * my);
  for (std::size_t i = 0; i < mx; ++i)
    for (std::size_t j = 0; j < my; ++j) coefficients_[i * my + j] = wt[j * mx + i];
}

double BicubicSpline::combine(const AxisWeights& wx, const AxisWeights& wy) const {
  // fpbisp.f: sp = sp + c(l2) * h(i1) * wy(j, j1), i1 outer, j1 inner.
  double sp = 0.0;
  std::size_t l1 = static_cast<std::size_t>(wx.first) * static_cast<std::size_t>(nky1_) + static_cast<std::size_t>(wy.first);
  for (int i1 = 0; i1 <= kDegree; ++i1) {
    const double hx = wx.values[static_cast<std::size_t>(i1)];
    for (int j1 = 0; j1 <= kDegree; ++j1) sp = sp + coefficients_[l1 + static_cast<std::size_t>(j1)] * hx * wy.values[static_cast<std::size_t>(j1)];
    l1 += static_cast<std::size_t>(nky1_);
  }
  return sp;
}

double BicubicSpline::operator()(double x, double y) const { return combine(axis_weights(tx_, x), axis_weights(ty_, y)); }

}  // namespace kubesim::bsp
