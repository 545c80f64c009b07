// Energy model of tiled loop codes (thesis 000, Appendix B): E_alg = P_stat T_alg +
// N_tiles E_tile, the kernels SW, J1D and J2D, user-described kernels, the regression's
// design matrix and its identifiability, least squares, Table B.3 and the tile search.
#include "costmetrics/energy.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "costmetrics/checked.hpp"
#include "costmetrics/parallel.hpp"
#include "costmetrics/search.hpp"

namespace costmetrics {
namespace energy {

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void require_nonnegative_finite(double v, const std::string& what) {
  if (!(v >= 0) || !std::isfinite(v)) {
    throw std::invalid_argument(what + ": must be finite and >= 0, got " + num(v));
  }
}

// Times are durations of real runs: zero or negative is a wrong input, never "no time".
void require_positive_finite(double v, const std::string& what) {
  if (!(v > 0) || !std::isfinite(v)) {
    throw std::invalid_argument(what + ": must be finite and > 0, got " + num(v));
  }
}

constexpr std::int64_t kMaxTile = std::int64_t{1} << 30;

}  // namespace

const std::array<const char*, kNumParams> kParamNames = {
    "p_stat_w", "e_gs_j", "e_sr_j", "e_fadd_j", "e_fmul_j", "e_iadd_j", "e_imax_j"};

void Params::validate() const {
  const auto v = to_vector(*this);
  for (int k = 0; k < kNumParams; ++k) require_nonnegative_finite(v[k], kParamNames[k]);
}

std::array<double, kNumParams> to_vector(const Params& p) {
  return {p.p_stat_w, p.e_gs_j, p.e_sr_j, p.e_fadd_j, p.e_fmul_j, p.e_iadd_j, p.e_imax_j};
}

Params from_vector(const std::array<double, kNumParams>& v) {
  Params p;
  p.p_stat_w = v[0];
  p.e_gs_j = v[1];
  p.e_sr_j = v[2];
  p.e_fadd_j = v[3];
  p.e_fmul_j = v[4];
  p.e_iadd_j = v[5];
  p.e_imax_j = v[6];
  return p;
}

void OpMix::validate() const {
  require_nonnegative_finite(fadd, "ops.fadd");
  require_nonnegative_finite(fmul, "ops.fmul");
  require_nonnegative_finite(iadd, "ops.iadd");
  require_nonnegative_finite(imax, "ops.imax");
}

// --------------------------------------------------------------------------------------
// Expressions (custom kernels)
// --------------------------------------------------------------------------------------

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (the rules Python's strict decoder
// applies: no overlong forms, no surrogates, nothing past U+10FFFF), 0 if there is none.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

// s[begin, end) for an error message: whole UTF-8 characters as they are, control bytes
// (NUL included) and bytes of no valid character as \xHH, so that a message never cuts a
// character in two (which Python could not decode) nor carries a raw NUL.
std::string printable(const std::string& s, std::size_t begin, std::size_t end) {
  static const char* const hex = "0123456789abcdef";
  std::string out;
  for (std::size_t i = begin; i < end;) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_length(s, i);
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F))) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xF];
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& what) : s_(text), what_(what) {}

  std::vector<Expression::Op> run() {
    if (s_.size() > 2000) fail("expression longer than 2000 characters");
    expr(0);
    skip();
    if (pos_ != s_.size()) fail("unexpected '" + character_at(pos_) + "'");
    if (code_.empty()) fail("empty expression");
    return std::move(code_);
  }

 private:
  using Op = Expression::Op;

  // Positions count characters (UTF-8 sequences), not bytes, as Python's str does.
  [[noreturn]] void fail(const std::string& why) const {
    std::size_t chars = 0;
    for (std::size_t i = 0; i < pos_ && i < s_.size();) {
      const std::size_t n = utf8_length(s_, i);
      i += n == 0 ? 1 : n;
      ++chars;
    }
    throw std::invalid_argument(what_ + ": " + why + " at position " + std::to_string(chars) +
                                " in '" + printable(s_, 0, s_.size()) + "'");
  }
  // The whole character at byte i, printable (never half of a multi-byte one).
  std::string character_at(std::size_t i) const {
    const std::size_t n = utf8_length(s_, i);
    return printable(s_, i, i + (n == 0 ? 1 : n));
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  void emit(Op::Code code, double value = 0, int var = 0) { code_.push_back(Op{code, value, var}); }
  void guard(int depth) {
    if (depth > 100) fail("expression nested too deeply");
  }

  void expr(int depth) {
    guard(depth);
    term(depth + 1);
    for (;;) {
      if (accept('+')) {
        term(depth + 1);
        emit(Op::kAdd);
      } else if (accept('-')) {
        term(depth + 1);
        emit(Op::kSub);
      } else {
        return;
      }
    }
  }
  void term(int depth) {
    guard(depth);
    unary(depth + 1);
    for (;;) {
      if (accept('*')) {
        unary(depth + 1);
        emit(Op::kMul);
      } else if (accept('/')) {
        unary(depth + 1);
        emit(Op::kDiv);
      } else {
        return;
      }
    }
  }
  void unary(int depth) {
    guard(depth);
    if (accept('-')) {
      unary(depth + 1);
      emit(Op::kNeg);
      return;
    }
    if (accept('+')) {
      unary(depth + 1);
      return;
    }
    primary(depth + 1);
    if (accept('^')) {
      unary(depth + 1);
      emit(Op::kPow);
    }
  }
  void primary(int depth) {
    guard(depth);
    skip();
    if (pos_ >= s_.size()) fail("unexpected end");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      expr(depth + 1);
      expect(')');
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const char* begin = s_.c_str() + pos_;
      char* end = nullptr;
      const double v = std::strtod(begin, &end);
      if (end == begin || !std::isfinite(v)) fail("bad number");
      pos_ += static_cast<std::size_t>(end - begin);
      emit(Op::kConst, v);
      return;
    }
    if (std::isalpha(static_cast<unsigned char>(c))) {
      std::size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
        ++pos_;
      }
      const std::string name = s_.substr(start, pos_ - start);
      static const std::unordered_map<std::string, int> vars = {
          {"S1", Expression::kS1}, {"S", Expression::kS1},    {"S2", Expression::kS2},
          {"S3", Expression::kS3}, {"T", Expression::kT},     {"tS1", Expression::ktS1},
          {"tS", Expression::ktS1}, {"tS2", Expression::ktS2}, {"tS3", Expression::ktS3},
          {"tT", Expression::ktT}, {"sS1", Expression::ksS1}, {"sS", Expression::ksS1}};
      const auto it = vars.find(name);
      if (it != vars.end()) {
        emit(Op::kVar, 0, it->second);
        return;
      }
      Op::Code fn;
      int n_args;
      if (name == "ceil") {
        fn = Op::kCeil, n_args = 1;
      } else if (name == "floor") {
        fn = Op::kFloor, n_args = 1;
      } else if (name == "min") {
        fn = Op::kMin, n_args = 2;
      } else if (name == "max") {
        fn = Op::kMax, n_args = 2;
      } else {
        pos_ = start;
        fail("unknown name '" + name +
             "' (variables: S1 S2 S3 T tS1 tS2 tS3 tT sS1, S tS sS; functions: ceil floor min max)");
      }
      expect('(');
      expr(depth + 1);
      for (int a = 1; a < n_args; ++a) {
        expect(',');
        expr(depth + 1);
      }
      expect(')');
      emit(fn);
      return;
    }
    fail("unexpected '" + character_at(pos_) + "'");
  }

  const std::string& s_;
  const std::string& what_;
  std::size_t pos_ = 0;
  std::vector<Op> code_;
};

}  // namespace

Expression Expression::parse(const std::string& text, const std::string& what) {
  Expression e;
  e.text_ = text;
  e.code_ = Parser(text, what).run();
  return e;
}

double Expression::eval(const std::array<double, kNumVars>& vars) const {
  double stack[256];
  std::size_t top = 0;
  for (const Op& op : code_) {
    switch (op.code) {
      case Op::kConst:
        if (top == 256) throw std::invalid_argument("expression too complex: " + text_);
        stack[top++] = op.value;
        break;
      case Op::kVar:
        if (top == 256) throw std::invalid_argument("expression too complex: " + text_);
        stack[top++] = vars[static_cast<std::size_t>(op.var)];
        break;
      case Op::kNeg:
        stack[top - 1] = -stack[top - 1];
        break;
      case Op::kCeil:
        stack[top - 1] = std::ceil(stack[top - 1]);
        break;
      case Op::kFloor:
        stack[top - 1] = std::floor(stack[top - 1]);
        break;
      default: {
        const double b = stack[--top];
        double& a = stack[top - 1];
        switch (op.code) {
          case Op::kAdd: a += b; break;
          case Op::kSub: a -= b; break;
          case Op::kMul: a *= b; break;
          case Op::kDiv: a /= b; break;
          case Op::kPow: a = std::pow(a, b); break;
          case Op::kMin: a = std::min(a, b); break;
          case Op::kMax: a = std::max(a, b); break;
          default: break;
        }
      }
    }
  }
  return stack[0];
}

// --------------------------------------------------------------------------------------
// Kernels
// --------------------------------------------------------------------------------------

Kernel smith_waterman() {
  Kernel k;
  k.kind = KernelKind::smith_waterman;
  k.name = "smith_waterman";
  k.n_space_dims = 1;
  k.ops.iadd = 5;  // B.6.2: "five add-compare operations", E_ar = 5 V_tile (e_iadd + e_imax)
  k.ops.imax = 5;
  return k;
}

Kernel jacobi1d() {
  Kernel k;
  k.kind = KernelKind::jacobi1d;
  k.name = "jacobi1d";
  k.n_space_dims = 1;
  k.ops.fadd = 2;  // Sec. B.3.2: (a + b + c) / 3 -> 2 adds, 1 multiply by 1/3
  k.ops.fmul = 1;
  return k;
}

Kernel jacobi2d() {
  Kernel k;
  k.kind = KernelKind::jacobi2d;
  k.name = "jacobi2d";
  k.n_space_dims = 2;
  k.ops.fadd = 4;  // Sec. B.3.3: 0.2 x (5 terms) -> 4 adds, 1 multiply
  k.ops.fmul = 1;
  return k;
}

bool Expression::uses(Var v) const {
  return std::any_of(code_.begin(), code_.end(),
                     [v](const Op& op) { return op.code == Op::kVar && op.var == v; });
}

bool Kernel::uses_subtile() const {
  switch (kind) {
    case KernelKind::smith_waterman:
    case KernelKind::jacobi1d:
      return true;
    case KernelKind::jacobi2d:
      return false;
    case KernelKind::custom:
      break;
  }
  for (const Expression* e : {&m_io_words, &sr_words, &v_tile, &n_tiles}) {
    if (e->uses(Expression::ksS1)) return true;
  }
  return false;
}

namespace {
// A subtile is >= 0 (0: sS = tS), and given only to a kernel whose counts read it (a J2D
// subtile was checked against tS1 and then ignored). validate_run and search share it.
void require_subtile_of(const Kernel& kernel, std::int64_t subtile) {
  if (subtile < 0) {
    throw std::invalid_argument("subtile sS: must be >= 0 (0: sS = tS), got " +
                                std::to_string(subtile));
  }
  if (subtile != 0 && !kernel.uses_subtile()) {
    throw std::invalid_argument("subtile: kernel '" + kernel.name +
                                "' has no subtile sS (SW, J1D and custom kernels that read sS "
                                "do), got " + std::to_string(subtile));
  }
}
}  // namespace

Kernel custom_kernel(const std::string& name, int n_space_dims, const OpMix& ops,
                     const std::string& m_io_words, const std::string& sr_words,
                     const std::string& v_tile, const std::string& n_tiles) {
  if (name.empty()) throw std::invalid_argument("kernel name must not be empty");
  if (n_space_dims < 1 || n_space_dims > 3) {
    throw std::invalid_argument("n_space_dims must be 1, 2 or 3, got " +
                                std::to_string(n_space_dims));
  }
  ops.validate();
  Kernel k;
  k.kind = KernelKind::custom;
  k.name = name;
  k.n_space_dims = n_space_dims;
  k.ops = ops;
  k.m_io_words = Expression::parse(m_io_words, "m_io_words");
  k.sr_words = Expression::parse(sr_words, "sr_words");
  k.v_tile = Expression::parse(v_tile, "v_tile");
  k.n_tiles = Expression::parse(n_tiles, "n_tiles");
  // The sizes and tiles of dimensions the kernel lacks would read as 0 (a 1D kernel's
  // "tS2", a typo of "tS", gave M_io = 0 words and E_gs = 0 J): refused by name.
  static const std::pair<Expression::Var, const char*> beyond[4] = {
      {Expression::kS2, "S2"}, {Expression::ktS2, "tS2"}, {Expression::kS3, "S3"},
      {Expression::ktS3, "tS3"}};
  const std::pair<const Expression*, const char*> exprs[4] = {{&k.m_io_words, "m_io_words"},
                                                              {&k.sr_words, "sr_words"},
                                                              {&k.v_tile, "v_tile"},
                                                              {&k.n_tiles, "n_tiles"}};
  for (const auto& [var, var_name] : beyond) {
    const int dim = var == Expression::kS2 || var == Expression::ktS2 ? 2 : 3;
    if (dim <= n_space_dims) continue;
    for (const auto& [expr, what] : exprs) {
      if (expr->uses(var)) {
        throw std::invalid_argument(std::string(what) + ": variable '" + var_name +
                                    "' is not defined for a kernel with " +
                                    std::to_string(n_space_dims) + " space dimension" +
                                    (n_space_dims == 1 ? "" : "s") + " (expression '" +
                                    expr->text() + "')");
      }
    }
  }
  return k;
}

void validate_run(const Kernel& kernel, const Run& run) {
  const int dims = kernel.n_space_dims;
  if (dims < 1 || dims > 3) throw std::invalid_argument("kernel has no valid n_space_dims");
  static const char* const size_names[3] = {"S1", "S2", "S3"};
  static const char* const tile_names[3] = {"tS1", "tS2", "tS3"};
  std::int64_t points = run.size.time_steps;
  require_positive(run.size.time_steps, "T");
  for (int d = 0; d < dims; ++d) {
    require_positive(run.size.space[d], size_names[d]);
    points = checked_mul(points, run.size.space[d], "iteration-space size S1*...*T");
  }
  if (points > (std::int64_t{1} << 53)) {
    throw std::overflow_error("iteration-space size S1*...*T exceeds 2^53 points");
  }
  require_positive(run.tiles.time, "tT");
  if (run.tiles.time > kMaxTile) throw std::overflow_error("tT exceeds 2^30");
  for (int d = 0; d < dims; ++d) {
    require_positive(run.tiles.space[d], tile_names[d]);
    if (run.tiles.space[d] > kMaxTile) {
      throw std::overflow_error(std::string(tile_names[d]) + " exceeds 2^30");
    }
  }
  require_subtile_of(kernel, run.subtile);
  if (run.subtile > run.tiles.space[0]) {
    throw std::invalid_argument("subtile sS = " + std::to_string(run.subtile) +
                                " exceeds the tile size tS1 = " + std::to_string(run.tiles.space[0]));
  }
  if (kernel.kind == KernelKind::jacobi2d && run.tiles.time % 2 != 0) {
    // B.4-B.5 assume an even tT (hexagon "area" tT/2 (2 tS1 + tT - 2)).
    throw std::invalid_argument("tT must be even for jacobi2d (Eqs. B.4-B.5), got " +
                                std::to_string(run.tiles.time));
  }
}

TileCounts counts_unchecked(const Kernel& kernel, const Run& run) {
  const double S1 = static_cast<double>(run.size.space[0]);
  const double S2 = static_cast<double>(run.size.space[1]);
  const double T = static_cast<double>(run.size.time_steps);
  const double tS1 = static_cast<double>(run.tiles.space[0]);
  const double tS2 = static_cast<double>(run.tiles.space[1]);
  const double tT = static_cast<double>(run.tiles.time);
  const double sS = run.subtile > 0 ? static_cast<double>(run.subtile) : tS1;
  TileCounts c;
  switch (kernel.kind) {
    case KernelKind::smith_waterman:
      // B.6.2, SW: V_tile = tS tT, M_io = 4.25 (tS + tT),
      // E_sr = (V_tile + 5 tT tS / sS) e_sr, N_tiles = V_alg / V_tile (exact for orthogonal tiles).
      c.v_tile = tS1 * tT;
      c.m_io_words = 4.25 * (tS1 + tT);
      c.sr_words = c.v_tile + 5.0 * tT * tS1 / sS;
      c.n_tiles = S1 * T / c.v_tile;
      break;
    case KernelKind::jacobi1d:
      // B.6.2, J1D: E_tile = 2 e_gs (2 tT + tS) + 4 e_sr (2 tS + 4 tT tS / sS) + E_iter V_tile
      // (the bracket read like SW's, docs/energy.md), V_tile = tS tT,
      // N_tiles = V_alg / V_tile (the generic approximation of B.6.1).
      c.v_tile = tS1 * tT;
      c.m_io_words = 2.0 * (2.0 * tT + tS1);
      c.sr_words = 4.0 * (2.0 * tS1 + 4.0 * tT * tS1 / sS);
      c.n_tiles = S1 * T / c.v_tile;
      break;
    case KernelKind::jacobi2d: {
      // Eqs. B.3-B.6 with w_tile = tS1 + tT - 2 (Eq. A.4; docs/energy.md) and mu_sr = 6.
      const double w_tile = tS1 + tT - 2.0;
      c.m_io_words = 2.0 * tS2 * (tS1 + 2.0 * tT);                          // B.3
      c.v_tile = tS2 * tT * (2.0 * tS1 + tT - 2.0) / 2.0;                    // B.4
      c.n_tiles = 2.0 * T * S1 * (S2 + tT) / (tT * tS2 * (tS1 + w_tile));   // B.5
      c.sr_words = 6.0 * c.v_tile;                                           // B.6, mu_sr = 6
      break;
    }
    case KernelKind::custom: {
      std::array<double, Expression::kNumVars> v{};
      v[Expression::kS1] = S1;
      v[Expression::kS2] = S2;
      v[Expression::kS3] = static_cast<double>(run.size.space[2]);
      v[Expression::kT] = T;
      v[Expression::ktS1] = tS1;
      v[Expression::ktS2] = tS2;
      v[Expression::ktS3] = static_cast<double>(run.tiles.space[2]);
      v[Expression::ktT] = tT;
      v[Expression::ksS1] = sS;
      c.m_io_words = kernel.m_io_words.eval(v);
      c.sr_words = kernel.sr_words.eval(v);
      c.v_tile = kernel.v_tile.eval(v);
      c.n_tiles = kernel.n_tiles.eval(v);
      auto check = [&](double value, const Expression& e, const char* what, bool positive) {
        if (!std::isfinite(value) || value < 0 || (positive && value == 0)) {
          throw std::invalid_argument("kernel '" + kernel.name + "': " + what + " = " +
                                      num(value) + (positive ? " (must be > 0)" : " (must be >= 0)") +
                                      " from '" + e.text() + "'");
        }
      };
      check(c.m_io_words, kernel.m_io_words, "m_io_words", false);
      check(c.sr_words, kernel.sr_words, "sr_words", false);
      check(c.v_tile, kernel.v_tile, "v_tile", true);
      check(c.n_tiles, kernel.n_tiles, "n_tiles", true);
      break;
    }
  }
  return c;
}

TileCounts counts(const Kernel& kernel, const Run& run) {
  validate_run(kernel, run);
  return counts_unchecked(kernel, run);
}

double e_iter_j(const OpMix& ops, const Params& p) {
  // Sec. B.6.2: E_iter = sum_j op_j e_j.
  return ops.fadd * p.e_fadd_j + ops.fmul * p.e_fmul_j + ops.iadd * p.e_iadd_j +
         ops.imax * p.e_imax_j;
}

Breakdown evaluate_unchecked(const Kernel& kernel, const Run& run, const Params& params,
                             double talg_s) {
  const TileCounts c = counts_unchecked(kernel, run);
  Breakdown b;
  b.n_tiles = c.n_tiles;
  b.v_tile = c.v_tile;
  b.m_io_words = c.m_io_words;
  b.sr_words = c.sr_words;
  b.talg_s = talg_s;
  b.e_iter_j = e_iter_j(kernel.ops, params);
  // Eq. B.2 / B.6: E_tile = e_gs M_io + E_sr + E_iter V_tile.
  const double e_gs_tile = params.e_gs_j * c.m_io_words;
  const double e_sr_tile = params.e_sr_j * c.sr_words;
  const double e_ar_tile = b.e_iter_j * c.v_tile;
  b.e_tile_j = e_gs_tile + e_sr_tile + e_ar_tile;
  b.e_gs_j = c.n_tiles * e_gs_tile;
  b.e_sr_j = c.n_tiles * e_sr_tile;
  b.e_ar_j = c.n_tiles * e_ar_tile;
  // Sec. B.6.1: E_alg = P_stat T_alg + N_tiles E_tile.
  b.e_static_j = params.p_stat_w * talg_s;
  b.e_dynamic_j = c.n_tiles * b.e_tile_j;
  b.e_alg_j = b.e_static_j + b.e_dynamic_j;
  return b;
}

Breakdown evaluate(const Kernel& kernel, const Run& run, const Params& params, double talg_s) {
  params.validate();
  kernel.ops.validate();
  require_positive_finite(talg_s, "talg_s");
  validate_run(kernel, run);
  Breakdown b = evaluate_unchecked(kernel, run, params, talg_s);
  if (!std::isfinite(b.e_alg_j)) {
    throw std::overflow_error("E_alg is not finite: E_static = P_stat T_alg = " +
                              format_value(b.e_static_j) + " J (talg_s = " +
                              format_value(talg_s) + "), E_dynamic = " +
                              format_value(b.e_dynamic_j) + " J (params, kernel counts)");
  }
  return b;
}

namespace {

void check_time_source(const Kernel& kernel, const time::ProblemSize& size,
                       const TimeSource& time) {
  if (!time.use_time_model) {
    require_positive_finite(time.talg_s, "talg_s");
    return;
  }
  if (time.stencil.n_space_dims != kernel.n_space_dims) {
    throw std::invalid_argument("time-model stencil has " +
                                std::to_string(time.stencil.n_space_dims) +
                                " space dimensions, kernel '" + kernel.name + "' has " +
                                std::to_string(kernel.n_space_dims));
  }
  time::validate_inputs(time.gpu, time.stencil, size);
}

double talg_of(const Run& run, const TimeSource& time) {
  if (!time.use_time_model) return time.talg_s;
  return time::evaluate_unchecked(time.gpu, time.stencil, run.size, run.tiles, time.variant)
      .talg_s;
}

}  // namespace

Breakdown evaluate_with(const Kernel& kernel, const Run& run, const Params& params,
                        const TimeSource& time) {
  check_time_source(kernel, run.size, time);
  validate_run(kernel, run);
  double talg = time.talg_s;
  if (time.use_time_model) {
    talg = time::evaluate(time.gpu, time.stencil, run.size, run.tiles, time.variant).talg_s;
  }
  return evaluate(kernel, run, params, talg);
}

namespace {

Run run_from_rows(const std::int64_t* sizes, const std::int64_t* tiles,
                  const std::int64_t* subtiles, std::size_t i) {
  Run r;
  for (int d = 0; d < 3; ++d) {
    r.size.space[d] = sizes[4 * i + d];
    r.tiles.space[d] = tiles[4 * i + d];
  }
  r.size.time_steps = sizes[4 * i + 3];
  r.tiles.time = tiles[4 * i + 3];
  r.subtile = subtiles == nullptr ? 0 : subtiles[i];
  return r;
}

template <typename F>
void for_rows(std::size_t n, int n_threads, F&& f) {
  parallel_for_chunks(
      n,
      [&](std::size_t begin, std::size_t end, std::size_t) {
        for (std::size_t i = begin; i < end; ++i) {
          try {
            f(i);
          } catch (const std::invalid_argument& e) {
            throw std::invalid_argument("row " + std::to_string(i) + ": " + e.what());
          } catch (const std::overflow_error& e) {
            throw std::overflow_error("row " + std::to_string(i) + ": " + e.what());
          }
        }
      },
      n_threads, 2048);
}

}  // namespace

void evaluate_batch(const Kernel& kernel, const std::int64_t* sizes, const std::int64_t* tiles,
                    const std::int64_t* subtiles, const double* talg_s, std::size_t n,
                    const Params& params, Breakdown* out, int n_threads) {
  params.validate();
  kernel.ops.validate();
  // As the time model's batch: a measured talg_s does not widen the thread range.
  require_in_range(n_threads, 0, time::kMaxThreads, "threads");
  for_rows(n, n_threads, [&](std::size_t i) {
    const Run r = run_from_rows(sizes, tiles, subtiles, i);
    out[i] = evaluate(kernel, r, params, talg_s[i]);
  });
}

std::array<double, kNumParams> design_row(const Kernel& kernel, const Run& run, double talg_s) {
  require_positive_finite(talg_s, "talg_s");
  const TileCounts c = counts(kernel, run);
  // Sec. B.7.1: E_alg(X) is linear in X = (P_stat, e_gs, e_sr, e_fadd, e_fmul, e_iadd, e_imax).
  const double nv = c.n_tiles * c.v_tile;
  const std::array<double, kNumParams> row = {talg_s,
                                              c.n_tiles * c.m_io_words,
                                              c.n_tiles * c.sr_words,
                                              nv * kernel.ops.fadd,
                                              nv * kernel.ops.fmul,
                                              nv * kernel.ops.iadd,
                                              nv * kernel.ops.imax};
  // Each factor is finite, but a product can overflow (ops.fadd = 1e308 times N V gave an
  // inf column): a fit on it would be meaningless, so refuse it, naming the column.
  static const char* const columns[kNumParams] = {
      "talg_s", "n_tiles * m_io_words", "n_tiles * sr_words", "n_tiles * v_tile * ops.fadd",
      "n_tiles * v_tile * ops.fmul", "n_tiles * v_tile * ops.iadd", "n_tiles * v_tile * ops.imax"};
  for (std::size_t j = 0; j < row.size(); ++j) {
    if (!std::isfinite(row[j])) {
      throw std::overflow_error(std::string("design row: ") + columns[j] +
                                " is not finite (n_tiles = " + format_value(c.n_tiles) +
                                ", v_tile = " + format_value(c.v_tile) + ")");
    }
  }
  return row;
}

double energy_per_operation_j(double e_alg_j, double p_stat_w, double talg_s, double op_count) {
  require_nonnegative_finite(e_alg_j, "e_alg_j");
  require_nonnegative_finite(p_stat_w, "p_stat_w");
  require_positive_finite(talg_s, "talg_s");
  if (!(op_count > 0) || !std::isfinite(op_count)) {
    throw std::invalid_argument("op_count: must be finite and > 0, got " + num(op_count));
  }
  const double e_dyn = e_alg_j - p_stat_w * talg_s;  // B.7.1: E_dyn = E_alg - P_stat T_alg
  if (e_dyn < 0) {
    throw std::invalid_argument("E_alg - P_stat T_alg = " + num(e_dyn) +
                                " J is negative: the static energy exceeds the measured energy");
  }
  const double e_op = e_dyn / op_count;
  if (!std::isfinite(e_op)) {
    throw std::overflow_error("energy per operation: result is not finite (e_alg_j = " +
                              format_value(e_alg_j) + ", p_stat_w = " + format_value(p_stat_w) +
                              ", talg_s = " + format_value(talg_s) +
                              ", op_count = " + format_value(op_count) + ")");
  }
  return e_op;
}

// --------------------------------------------------------------------------------------
// Regression: identifiability and least squares
// --------------------------------------------------------------------------------------

namespace {

using MatrixX = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Decomposed {
  Eigen::VectorXd scale;        // column norms (1 for zero columns)
  Eigen::MatrixXd r;            // small matrix with the same singular values and V
  Eigen::VectorXd qtb;          // Q^T b restricted to r's rows (when b given)
  Eigen::JacobiSVD<Eigen::MatrixXd> svd;
  int rank = 0;
};

Decomposed decompose(const double* design, const double* b, std::size_t n_rows, double rel_tol) {
  if (n_rows == 0) throw std::invalid_argument("design matrix has no rows");
  if (!(rel_tol > 0) || !(rel_tol < 1)) {
    throw std::invalid_argument("rel_tol must be in (0, 1), got " + num(rel_tol));
  }
  const auto rows = static_cast<Eigen::Index>(n_rows);
  Eigen::Map<const MatrixX> a(design, rows, kNumParams);
  if (!a.allFinite()) throw std::invalid_argument("design matrix has non-finite entries");
  Decomposed d;
  d.scale = a.colwise().norm().transpose();
  for (int k = 0; k < kNumParams; ++k) {
    if (!(d.scale[k] > 0)) d.scale[k] = 1.0;
  }
  Eigen::MatrixXd as = a * d.scale.cwiseInverse().asDiagonal();
  // Reduce to a kNumParams x kNumParams triangle first: same singular values and right
  // singular vectors, and an SVD that costs nothing however many runs there are.
  if (rows > kNumParams) {
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(as);
    d.r = qr.matrixQR().topRows(kNumParams).triangularView<Eigen::Upper>();
    if (b != nullptr) {
      Eigen::VectorXd qtb = qr.householderQ().adjoint() * Eigen::Map<const Eigen::VectorXd>(b, rows);
      d.qtb = qtb.head(kNumParams);
    }
  } else {
    d.r = as;
    if (b != nullptr) d.qtb = Eigen::Map<const Eigen::VectorXd>(b, rows);
  }
  d.svd.compute(d.r, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const auto& s = d.svd.singularValues();
  const double cutoff = s.size() > 0 ? s[0] * rel_tol : 0.0;
  d.rank = 0;
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    if (s[i] > cutoff && s[i] > 0) ++d.rank;
  }
  return d;
}

Identifiability analyse(const Decomposed& d) {
  Identifiability id;
  id.rank = d.rank;
  const auto& s = d.svd.singularValues();
  for (Eigen::Index i = 0; i < s.size(); ++i) id.singular_values.push_back(s[i]);
  while (id.singular_values.size() < static_cast<std::size_t>(kNumParams)) {
    id.singular_values.push_back(0.0);
  }
  const Eigen::MatrixXd& v = d.svd.matrixV();  // kNumParams x kNumParams
  // Null space (in parameter coordinates x = y / scale): columns rank.. of V. Parameter k is
  // individually identifiable iff every null vector has a zero k-th component.
  for (int k = 0; k < kNumParams; ++k) {
    bool ok = true;
    for (int j = d.rank; j < kNumParams; ++j) ok = ok && std::fabs(v(k, j)) < 1e-8;
    id.individually_identifiable[static_cast<std::size_t>(k)] = ok;
  }
  // Row space of A = span of (V_r^T diag(scale)); reduce to row echelon form.
  Eigen::MatrixXd basis(d.rank, kNumParams);
  for (int i = 0; i < d.rank; ++i) {
    for (int k = 0; k < kNumParams; ++k) basis(i, k) = v(k, i) * d.scale[k];
  }
  // Normalize columns for pivoting, then undo: work in scaled coordinates so that the
  // pivot choice does not depend on units (W versus J).
  Eigen::MatrixXd m = basis * d.scale.cwiseInverse().asDiagonal();
  int row = 0;
  std::vector<int> pivots;
  for (int col = 0; col < kNumParams && row < d.rank; ++col) {
    Eigen::Index best;
    const double mag = m.col(col).segment(row, d.rank - row).cwiseAbs().maxCoeff(&best);
    if (mag < 1e-9) continue;
    m.row(row).swap(m.row(row + static_cast<int>(best)));
    m.row(row) /= m(row, col);
    for (int i = 0; i < d.rank; ++i) {
      if (i != row) m.row(i) -= m(i, col) * m.row(row);
    }
    pivots.push_back(col);
    ++row;
  }
  for (int i = 0; i < row; ++i) {
    std::array<double, kNumParams> c{};
    // Back to parameter coordinates: a functional c_s . y equals (c_s / scale) . (scale x)...
    // the combination sum_k c_k x_k has c_k = m(i, k) * scale_k.
    double smallest = std::numeric_limits<double>::infinity();
    for (int k = 0; k < kNumParams; ++k) {
      double value = std::fabs(m(i, k)) < 1e-9 ? 0.0 : m(i, k) * d.scale[k];
      c[static_cast<std::size_t>(k)] = value;
      if (value != 0) smallest = std::min(smallest, std::fabs(value));
    }
    for (auto& value : c) value /= smallest;
    id.combinations.push_back(c);
  }
  return id;
}

}  // namespace

Identifiability identifiability(const double* design, std::size_t n_rows, double rel_tol) {
  return analyse(decompose(design, nullptr, n_rows, rel_tol));
}

LeastSquares fit_least_squares(const double* design, const double* energy_j, std::size_t n_rows,
                               double rel_tol) {
  for (std::size_t i = 0; i < n_rows; ++i) {
    if (!std::isfinite(energy_j[i])) {
      throw std::invalid_argument("energy_j[" + std::to_string(i) + "]: must be finite, got " +
                                  num(energy_j[i]));
    }
  }
  const Decomposed d = decompose(design, energy_j, n_rows, rel_tol);
  LeastSquares r;
  r.ident = analyse(d);
  // Minimum-norm solution in scaled coordinates y = scale * x: y = V_r S_r^-1 U_r^T Q^T b.
  const auto& u = d.svd.matrixU();
  const auto& v = d.svd.matrixV();
  const auto& s = d.svd.singularValues();
  Eigen::VectorXd y = Eigen::VectorXd::Zero(kNumParams);
  for (int i = 0; i < d.rank; ++i) {
    y += v.col(i) * (u.col(i).dot(d.qtb) / s[i]);
  }
  for (int k = 0; k < kNumParams; ++k) r.x[static_cast<std::size_t>(k)] = y[k] / d.scale[k];
  return r;
}

// --------------------------------------------------------------------------------------
// Table B.3 and the tile search
// --------------------------------------------------------------------------------------

OptimizationError optimization_error(const std::int64_t* group, const double* predicted_j,
                                     const double* measured_j, std::size_t n) {
  if (n == 0) throw std::invalid_argument("optimization_error: no runs");
  struct Best {
    std::size_t pred = 0, meas = 0;
  };
  std::unordered_map<std::int64_t, std::size_t> slot;
  std::vector<Best> best;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(predicted_j[i])) {
      throw std::invalid_argument("predicted_j[" + std::to_string(i) +
                                  "]: must be finite, got " + num(predicted_j[i]));
    }
    if (!(measured_j[i] > 0) || !std::isfinite(measured_j[i])) {
      throw std::invalid_argument("measured_j[" + std::to_string(i) +
                                  "]: must be finite and > 0, got " + num(measured_j[i]));
    }
    auto it = slot.find(group[i]);
    if (it == slot.end()) {
      slot.emplace(group[i], best.size());
      best.push_back(Best{i, i});
      continue;
    }
    Best& b = best[it->second];
    if (predicted_j[i] < predicted_j[b.pred]) b.pred = i;
    if (measured_j[i] < measured_j[b.meas]) b.meas = i;
  }
  OptimizationError r;
  r.n_groups = best.size();
  double sum_sq = 0;
  for (const Best& b : best) {
    // B.8.2: E_err = E_meas(delta_alg_min) - E_meas(delta_meas_min), here relative to the
    // latter (Table B.3 prints percentages).
    const double err = 100.0 * (measured_j[b.pred] - measured_j[b.meas]) / measured_j[b.meas];
    if (b.pred != b.meas) ++r.n_wrong;
    r.error_pct.push_back(err);
    sum_sq += err * err;
    r.max_pct = std::max(r.max_pct, err);
  }
  r.rmse_pct = std::sqrt(sum_sq / static_cast<double>(best.size()));
  return r;
}

bool tile_feasible(const Kernel& kernel, const Run& run, const TimeSource& time) {
  const int dims = kernel.n_space_dims;
  if (run.tiles.time <= 0 || run.tiles.time > kMaxTile) return false;
  for (int d = 0; d < dims; ++d) {
    if (run.tiles.space[d] <= 0 || run.tiles.space[d] > kMaxTile) return false;
  }
  if (run.subtile < 0 || run.subtile > run.tiles.space[0]) return false;
  if (kernel.kind == KernelKind::jacobi2d && run.tiles.time % 2 != 0) return false;
  if (time.use_time_model &&
      time::feasibility(time.gpu, dims, run.tiles) != time::kFeasible) {
    return false;
  }
  return true;
}

SearchResult search(const Kernel& kernel, const time::ProblemSize& size,
                    std::int64_t subtile, const Params& params, const TimeSource& time,
                    const time::SearchSpace& space, double within, int n_threads) {
  params.validate();
  kernel.ops.validate();
  require_in_range(within, 0.0, 1e6, "within");  // as the time model's search
  require_in_range(n_threads, 0, time::kMaxThreads, "threads");  // with or without talg_s
  check_time_source(kernel, size, time);
  if (static_cast<int>(space.space.size()) != kernel.n_space_dims) {
    throw std::invalid_argument("search space has " + std::to_string(space.space.size()) +
                                " space dimensions, kernel '" + kernel.name + "' has " +
                                std::to_string(kernel.n_space_dims));
  }
  if (space.time.empty()) throw std::invalid_argument("search space: no tT candidates");
  for (const auto& values : space.space) {
    if (values.empty()) throw std::invalid_argument("search space: a dimension has no candidates");
  }
  {
    // Validate the problem size once (with a tile that is certainly valid).
    Run probe;
    probe.size = size;
    probe.tiles.time = 2;
    for (int d = 0; d < kernel.n_space_dims; ++d) probe.tiles.space[d] = 1;
    validate_run(kernel, probe);
  }
  require_subtile_of(kernel, subtile);
  auto make_run = [&](const time::TileSizes& t) {
    Run r;
    r.size = size;
    r.tiles = t;
    r.subtile = subtile;
    return r;
  };
  auto found = search::exhaustive_search(
      space, [&](const time::TileSizes& t) { return tile_feasible(kernel, make_run(t), time); },
      [&](const time::TileSizes& t) {
        const Run r = make_run(t);
        return evaluate_unchecked(kernel, r, params, talg_of(r, time)).e_alg_j;
      },
      within, n_threads, 512);
  SearchResult r;
  r.best = found.best;
  const Run best_run = make_run(found.best);
  r.best_breakdown = evaluate_unchecked(kernel, best_run, params, talg_of(best_run, time));
  r.e_min_j = found.best_value;
  r.near_optimal = std::move(found.near_optimal);
  r.near_optimal_e_j = std::move(found.near_optimal_values);
  r.n_points = found.n_points;
  r.n_feasible = found.n_feasible;
  return r;
}

}  // namespace energy
}  // namespace costmetrics
