// Scratchpad data movement and tile-size search (seed 004, Sections 3 and 4.3). See
// scratchpad.hpp for conventions and docs/scratchpad.md for the readings chosen.
#include "costmetrics/scratchpad.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "costmetrics/checked.hpp"
#include "costmetrics/parallel.hpp"

namespace costmetrics::scratchpad {

namespace {

using Point = std::vector<std::int64_t>;
using PointSet = std::set<Point>;

void require_finite_nonnegative(double value, const std::string& name) {
  if (!std::isfinite(value) || value < 0) {
    throw std::invalid_argument(name + " must be finite and >= 0, got " + format_value(value));
  }
}

void require_finite_positive(double value, const std::string& name) {
  if (!std::isfinite(value) || !(value > 0)) {
    throw std::invalid_argument(name + " must be finite and > 0, got " + format_value(value));
  }
}

// Checks one reference against the number of loops it is written over. `what()` gives the
// reference's name for the message; it is called only when a check fails, because
// evaluate_tiles checks its problem on every call (building the names had cost more than
// the evaluation).
template <typename Name>
void validate_reference(const Reference& ref, std::size_t n_loops, const Name& what) {
  if (ref.array.empty()) throw std::invalid_argument(what() + ".array: empty name");
  if (ref.coeffs.empty()) {
    throw std::invalid_argument(what() + ".coeffs: an array reference needs at least one subscript");
  }
  if (ref.offsets.size() != ref.coeffs.size()) {
    throw std::invalid_argument(what() + ".offsets: " + std::to_string(ref.offsets.size()) +
                                " offsets for " + std::to_string(ref.coeffs.size()) +
                                " subscripts");
  }
  for (std::size_t d = 0; d < ref.coeffs.size(); ++d) {
    if (ref.coeffs[d].size() != n_loops) {
      throw std::invalid_argument(what() + ".coeffs[" + std::to_string(d) + "]: " +
                                  std::to_string(ref.coeffs[d].size()) + " coefficients for " +
                                  std::to_string(n_loops) + " loops");
    }
    for (std::size_t l = 0; l < n_loops; ++l) {
      const std::int64_t a = ref.coeffs[d][l];
      if (a > (std::int64_t{1} << 31) || a < -(std::int64_t{1} << 31)) {
        throw std::invalid_argument(what() + ".coeffs[" + std::to_string(d) + "][" +
                                    std::to_string(l) + "] = " + std::to_string(a) +
                                    " is outside [-2^31, 2^31]");
      }
    }
    if (ref.offsets[d] > (std::int64_t{1} << 40) || ref.offsets[d] < -(std::int64_t{1} << 40)) {
      throw std::invalid_argument(what() + ".offsets[" + std::to_string(d) +
                                  "] is outside [-2^40, 2^40]");
    }
  }
}

// Integer bounding box of a data space: the image of a box under an affine map reaches its
// extreme subscripts at the box's corners, one loop at a time.
struct Box {
  Point lo, hi;
};

Box image_box(const Reference& ref, const Point& lower, const Point& upper) {
  Box b;
  const std::size_t dims = ref.coeffs.size();
  b.lo.assign(dims, 0);
  b.hi.assign(dims, 0);
  for (std::size_t d = 0; d < dims; ++d) {
    std::int64_t lo = ref.offsets[d], hi = ref.offsets[d];
    for (std::size_t l = 0; l < lower.size(); ++l) {
      const std::int64_t a = ref.coeffs[d][l];
      const std::int64_t x = checked_mul(a, lower[l], "subscript"),
                         y = checked_mul(a, upper[l], "subscript");
      lo = checked_add(lo, std::min(x, y), "subscript");
      hi = checked_add(hi, std::max(x, y), "subscript");
    }
    b.lo[d] = lo;
    b.hi[d] = hi;
  }
  return b;
}

Box hull(const Box& a, const Box& b) {
  Box h = a;
  for (std::size_t d = 0; d < a.lo.size(); ++d) {
    h.lo[d] = std::min(a.lo[d], b.lo[d]);
    h.hi[d] = std::max(a.hi[d], b.hi[d]);
  }
  return h;
}

std::int64_t box_size(const Box& b) {
  std::int64_t size = 1;
  for (std::size_t d = 0; d < b.lo.size(); ++d) {
    size = checked_mul(size, checked_add(b.hi[d] - b.lo[d], 1, "extent"), "local array size");
  }
  return size;
}

bool intersects(const PointSet& a, const PointSet& b) {
  const PointSet& small = a.size() <= b.size() ? a : b;
  const PointSet& large = a.size() <= b.size() ? b : a;
  for (const Point& p : small) {
    if (large.count(p) != 0) return true;
  }
  return false;
}

// Connected components of "overlaps" among the given data spaces (indices into `spaces`).
template <typename Overlap>
std::vector<std::vector<std::size_t>> components(const std::vector<std::size_t>& members,
                                                 Overlap overlap) {
  std::vector<std::size_t> parent(members.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (std::size_t i = 0; i < members.size(); ++i) {
    for (std::size_t j = i + 1; j < members.size(); ++j) {
      if (find(i) != find(j) && overlap(members[i], members[j])) parent[find(i)] = find(j);
    }
  }
  std::vector<std::vector<std::size_t>> groups;
  std::map<std::size_t, std::size_t> index;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const std::size_t root = find(i);
    auto it = index.find(root);
    if (it == index.end()) {
      index[root] = groups.size();
      groups.push_back({members[i]});
    } else {
      groups[it->second].push_back(members[i]);
    }
  }
  return groups;
}

struct DataSpace {
  bool write = false;
  Box box;
  PointSet points;
};

}  // namespace

double movement_cost(double occurrences, double processes, double sync_cost,
                     double volume_words, double cost_per_word) {
  require_finite_nonnegative(occurrences, "occurrences");
  require_finite_positive(processes, "processes");
  require_finite_nonnegative(sync_cost, "sync_cost");
  require_finite_nonnegative(volume_words, "volume_words");
  require_finite_nonnegative(cost_per_word, "cost_per_word");
  // Sec. 4.3: C = N x ((P x S) + V x L / P).
  const double c =
      occurrences * ((processes * sync_cost) + volume_words * cost_per_word / processes);
  if (!std::isfinite(c)) throw std::overflow_error("movement_cost: result is not finite");
  return c;
}

void Statement::validate(const std::string& what) const {
  if (lower.size() != upper.size()) {
    throw std::invalid_argument(what + ": " + std::to_string(lower.size()) +
                                " lower bounds for " + std::to_string(upper.size()) +
                                " upper bounds");
  }
  if (refs.empty()) throw std::invalid_argument(what + ".refs: no array reference");
  for (std::size_t l = 0; l < lower.size(); ++l) {
    if (std::llabs(lower[l]) > (std::int64_t{1} << 40) ||
        std::llabs(upper[l]) > (std::int64_t{1} << 40)) {
      throw std::invalid_argument(what + ": loop " + std::to_string(l) +
                                  " bounds are outside [-2^40, 2^40]");
    }
    if (upper[l] < lower[l]) {
      throw std::invalid_argument(what + ": loop " + std::to_string(l) + " is empty (upper " +
                                  std::to_string(upper[l]) + " < lower " +
                                  std::to_string(lower[l]) + ")");
    }
  }
  for (std::size_t r = 0; r < refs.size(); ++r) {
    validate_reference(refs[r], lower.size(),
                       [&] { return what + ".refs[" + std::to_string(r) + "]"; });
  }
}

std::vector<LocalArray> local_arrays(const std::vector<Statement>& statements, Reading reading,
                                     std::int64_t max_points) {
  require_in_range(max_points, std::int64_t{1}, kMaxEnumerationPoints, "max_points",
                   " pairs (the cap keeps the enumeration's memory near 2.5 GB)");
  if (statements.empty()) throw std::invalid_argument("statements: empty program block");
  // Validate everything and bound the enumeration before doing any of it.
  std::int64_t work = 0;
  for (std::size_t s = 0; s < statements.size(); ++s) {
    const Statement& st = statements[s];
    st.validate("statements[" + std::to_string(s) + "]");
    std::int64_t points = 1;
    for (std::size_t l = 0; l < st.lower.size(); ++l) {
      points = checked_mul(points, st.upper[l] - st.lower[l] + 1, "iteration points");
    }
    work = checked_add(work, checked_mul(points, static_cast<std::int64_t>(st.refs.size()),
                                         "enumeration work"),
                       "enumeration work");
    if (work > max_points) {
      throw std::overflow_error("local_arrays: enumerating the data spaces takes more than " +
                                std::to_string(max_points) +
                                " (instance, reference) pairs; raise max_points or shrink the "
                                "loop bounds");
    }
  }

  // Data spaces per array, arrays in order of first appearance.
  std::vector<std::string> names;
  std::map<std::string, std::vector<DataSpace>> spaces;
  for (const Statement& st : statements) {
    for (const Reference& ref : st.refs) {
      auto& list = spaces[ref.array];
      if (list.empty()) names.push_back(ref.array);
      if (!list.empty() && list.front().box.lo.size() != ref.coeffs.size()) {
        throw std::invalid_argument("array " + ref.array + " is referenced with " +
                                    std::to_string(ref.coeffs.size()) + " and " +
                                    std::to_string(list.front().box.lo.size()) + " subscripts");
      }
      DataSpace ds;
      ds.write = ref.write;
      ds.box = image_box(ref, st.lower, st.upper);
      // Enumerate the statement's box (odometer order).
      Point x = st.lower;
      Point element(ref.coeffs.size());
      while (true) {
        for (std::size_t d = 0; d < element.size(); ++d) {
          std::int64_t v = ref.offsets[d];
          for (std::size_t l = 0; l < x.size(); ++l) v += ref.coeffs[d][l] * x[l];
          element[d] = v;
        }
        ds.points.insert(element);
        bool done = true;
        for (std::size_t l = x.size(); l-- > 0;) {
          if (x[l] < st.upper[l]) {
            ++x[l];
            done = false;
            break;
          }
          x[l] = st.lower[l];
        }
        if (done) break;
      }
      list.push_back(std::move(ds));
    }
  }

  std::vector<LocalArray> out;
  for (const std::string& name : names) {
    const auto& list = spaces[name];
    std::vector<std::size_t> all(list.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    auto overlap = [&](std::size_t a, std::size_t b) {
      return intersects(list[a].points, list[b].points);
    };
    std::vector<std::vector<std::size_t>> groups;
    if (reading == Reading::per_array) {
      groups.push_back(all);
    } else {
      groups = components(all, overlap);  // Algorithm 2, line 5
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      LocalArray la;
      la.array = name;
      la.partition = static_cast<std::int64_t>(g);
      Box box = list[groups[g].front()].box;
      for (std::size_t i : groups[g]) box = hull(box, list[i].box);  // lines 7-8
      la.lower = box.lo;
      la.upper = box.hi;
      for (std::size_t d = 0; d < box.lo.size(); ++d) la.extents.push_back(box.hi[d] - box.lo[d] + 1);
      la.size_words = box_size(box);  // line 9
      // Sec. 3.1.3: read (write) spaces split into maximal overlapping sets, bbox of each.
      for (int kind = 0; kind < 2; ++kind) {
        const bool write = kind == 1;
        std::vector<std::size_t> members;
        PointSet distinct;
        for (std::size_t i : groups[g]) {
          if (list[i].write == write) {
            members.push_back(i);
            distinct.insert(list[i].points.begin(), list[i].points.end());
          }
        }
        std::int64_t bound = 0;
        for (const auto& part : components(members, overlap)) {
          Box pb = list[part.front()].box;
          for (std::size_t i : part) pb = hull(pb, list[i].box);
          bound = checked_add(bound, box_size(pb), "move volume");
        }
        (write ? la.move_out_bound_words : la.move_in_bound_words) = bound;
        (write ? la.move_out_exact_words : la.move_in_exact_words) =
            static_cast<std::int64_t>(distinct.size());
      }
      out.push_back(std::move(la));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Tile-size search.

void TileProblem::validate() const {
  if (extents.empty()) throw std::invalid_argument("extents: no loop to tile");
  for (std::size_t l = 0; l < extents.size(); ++l) {
    if (extents[l] < 1) {
      throw std::invalid_argument("extents[" + std::to_string(l) +
                                  "]: must be positive, got " + std::to_string(extents[l]));
    }
    if (extents[l] > (std::int64_t{1} << 40)) {
      throw std::invalid_argument("extents[" + std::to_string(l) + "] = " +
                                  std::to_string(extents[l]) + " exceeds 2^40");
    }
  }
  if (refs.empty()) throw std::invalid_argument("refs: no array reference");
  for (std::size_t r = 0; r < refs.size(); ++r) {
    const auto what = [r] { return "refs[" + std::to_string(r) + "]"; };
    validate_reference(refs[r], extents.size(), what);
    // The array's subscript count, against its first reference (no map: the few references
    // of a problem compare faster than a map of names is built).
    for (std::size_t q = 0; q < r; ++q) {
      if (refs[q].array == refs[r].array) {
        if (refs[q].coeffs.size() != refs[r].coeffs.size()) {
          throw std::invalid_argument(what() + ": array " + refs[r].array + " has " +
                                      std::to_string(refs[q].coeffs.size()) +
                                      " subscripts elsewhere");
        }
        break;
      }
    }
  }
  require_finite_positive(processes, "processes (P)");
  require_finite_nonnegative(sync_cost, "sync_cost (S)");
  require_finite_nonnegative(cost_per_word, "cost_per_word (L)");
  require_finite_positive(memory_limit_words, "memory_limit_words (M_up)");
}

namespace {

struct RealBox {
  std::vector<double> lo, hi;
};

// Bounding box of one reference over the tile [0, t_l - 1] per loop (t real, >= 1).
RealBox tile_box(const Reference& ref, const std::vector<double>& t) {
  RealBox b;
  const std::size_t dims = ref.coeffs.size();
  b.lo.assign(dims, 0.0);
  b.hi.assign(dims, 0.0);
  for (std::size_t d = 0; d < dims; ++d) {
    double lo = static_cast<double>(ref.offsets[d]), hi = lo;
    for (std::size_t l = 0; l < t.size(); ++l) {
      const double v = static_cast<double>(ref.coeffs[d][l]) * (t[l] - 1.0);
      lo += std::min(0.0, v);
      hi += std::max(0.0, v);
    }
    b.lo[d] = lo;
    b.hi[d] = hi;
  }
  return b;
}

double real_size(const RealBox& b) {
  double s = 1.0;
  for (std::size_t d = 0; d < b.lo.size(); ++d) s *= b.hi[d] - b.lo[d] + 1.0;
  return s;
}

RealBox real_hull(const RealBox& a, const RealBox& b) {
  RealBox h = a;
  for (std::size_t d = 0; d < a.lo.size(); ++d) {
    h.lo[d] = std::min(a.lo[d], b.lo[d]);
    h.hi[d] = std::max(a.hi[d], b.hi[d]);
  }
  return h;
}

bool real_overlap(const RealBox& a, const RealBox& b) {
  for (std::size_t d = 0; d < a.lo.size(); ++d) {
    if (a.hi[d] < b.lo[d] || b.hi[d] < a.lo[d]) return false;
  }
  return true;
}

// The static structure of a tile problem: arrays in first-appearance order, their refs and
// the placement r_j of their movement code.
struct Layout {
  std::vector<std::string> names;
  std::vector<std::vector<std::size_t>> refs;  // per array
  std::vector<std::size_t> placement;          // r_j in 0..m
};

Layout layout_of(const TileProblem& p) {
  Layout lay;
  std::map<std::string, std::size_t> index;
  for (std::size_t r = 0; r < p.refs.size(); ++r) {
    auto it = index.find(p.refs[r].array);
    if (it == index.end()) {
      index[p.refs[r].array] = lay.names.size();
      lay.names.push_back(p.refs[r].array);
      lay.refs.push_back({r});
    } else {
      lay.refs[it->second].push_back(r);
    }
  }
  // Sec. 4.2: the movement code is hoisted above every tiling loop that no reference of the
  // array depends on and that has no dependent loop inside it: r_j = 1 + the innermost loop
  // with a nonzero coefficient.
  for (const auto& members : lay.refs) {
    std::size_t r_j = 0;
    for (std::size_t r : members) {
      for (const auto& row : p.refs[r].coeffs) {
        for (std::size_t l = 0; l < row.size(); ++l) {
          if (row[l] != 0) r_j = std::max(r_j, l + 1);
        }
      }
    }
    lay.placement.push_back(r_j);
  }
  return lay;
}

void check_tiles(const TileProblem& p, const std::vector<double>& t) {
  if (t.size() != p.extents.size()) {
    throw std::invalid_argument("tiles: " + std::to_string(t.size()) + " sizes for " +
                                std::to_string(p.extents.size()) + " loops");
  }
  for (std::size_t l = 0; l < t.size(); ++l) {
    if (!std::isfinite(t[l]) || t[l] < 1.0) {
      throw std::invalid_argument("tiles[" + std::to_string(l) + "]: must be finite and >= 1, got " +
                                  format_value(t[l]));
    }
  }
}

// Volume bound of one kind (reads or writes) of an array: bounding boxes of the maximal
// overlapping sets of its data spaces (Sec. 3.1.3), overlap judged on the boxes.
double kind_volume(const std::vector<RealBox>& boxes, const std::vector<bool>& writes, bool write) {
  std::vector<std::size_t> members;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (writes[i] == write) members.push_back(i);
  }
  double v = 0.0;
  for (const auto& part : components(members, [&](std::size_t a, std::size_t b) {
         return real_overlap(boxes[a], boxes[b]);
       })) {
    RealBox h = boxes[part.front()];
    for (std::size_t i : part) h = real_hull(h, boxes[i]);
    v += real_size(h);
  }
  return v;
}

std::vector<TileArray> arrays_at(const TileProblem& p, const Layout& lay,
                                 const std::vector<double>& t) {
  std::vector<TileArray> out;
  out.reserve(lay.names.size());
  const double ps = p.processes * p.sync_cost;
  for (std::size_t j = 0; j < lay.names.size(); ++j) {
    TileArray a;
    a.array = lay.names[j];
    a.placement = static_cast<std::int64_t>(lay.placement[j]);
    std::vector<RealBox> boxes;
    std::vector<bool> writes;
    bool reads = false, written = false;
    for (std::size_t r : lay.refs[j]) {
      boxes.push_back(tile_box(p.refs[r], t));
      writes.push_back(p.refs[r].write);
      (p.refs[r].write ? written : reads) = true;
    }
    RealBox h = boxes.front();
    for (const auto& b : boxes) h = real_hull(h, b);
    a.size_words = real_size(h);  // per_array reading (Fig. 1)
    a.occurrences = 1.0;
    for (std::size_t l = 0; l < lay.placement[j]; ++l) {
      const double n = static_cast<double>(p.extents[l]);
      a.occurrences *= p.ceil_occurrences ? std::ceil(n / t[l]) : n / t[l];
    }
    if (reads) a.move_in_words = kind_volume(boxes, writes, false);
    if (written) a.move_out_words = kind_volume(boxes, writes, true);
    // Objective of Sec. 4.3: one term per array moved in, one per array moved out.
    if (reads) a.cost += a.occurrences * (ps + a.move_in_words * p.cost_per_word / p.processes);
    if (written) a.cost += a.occurrences * (ps + a.move_out_words * p.cost_per_word / p.processes);
    out.push_back(std::move(a));
  }
  return out;
}

TileEvaluation evaluate_with(const TileProblem& p, const Layout& lay,
                             const std::vector<double>& t) {
  TileEvaluation e;
  for (const TileArray& a : arrays_at(p, lay, t)) {
    e.cost += a.cost;
    e.memory_words += a.size_words;
  }
  e.product = 1.0;
  e.within_extents = true;
  for (std::size_t l = 0; l < t.size(); ++l) {
    e.product *= t[l];
    e.within_extents = e.within_extents && t[l] <= static_cast<double>(p.extents[l]);
  }
  e.fits_memory = e.memory_words <= p.memory_limit_words;
  e.enough_parallelism = e.product >= p.processes;
  e.feasible = e.within_extents && e.fits_memory && e.enough_parallelism;
  return e;
}

// evaluate_with for the search, without an allocation per tile vector: the
// problem's references flattened once, the boxes computed into buffers kept between calls.
// The same operations in the same order as arrays_at, tile_box, real_hull and real_size,
// so the same bits (test_scratchpad compares integer_optimum with evaluate_tiles over every
// tile vector of random problems). Before it, the search spent about 2.4 us per tile vector
// of the ME problem on allocations (vectors of boxes, the arrays' names).
class TileEvaluator {
 public:
  TileEvaluator(const TileProblem& p, const Layout& lay)
      : extents_(p.extents.size()),
        ps_(p.processes * p.sync_cost),
        cost_per_word_(p.cost_per_word),
        processes_(p.processes),
        memory_limit_(p.memory_limit_words),
        ceil_(p.ceil_occurrences) {
    for (std::size_t l = 0; l < p.extents.size(); ++l) {
      extents_[l] = static_cast<double>(p.extents[l]);
    }
    std::size_t slot = 0;
    for (const Reference& ref : p.refs) {
      first_.push_back(slot);
      dims_.push_back(ref.coeffs.size());
      for (std::size_t d = 0; d < ref.coeffs.size(); ++d) {
        offset_.push_back(static_cast<double>(ref.offsets[d]));
        for (std::int64_t c : ref.coeffs[d]) coeff_.push_back(static_cast<double>(c));
      }
      slot += ref.coeffs.size();
    }
    lo_.assign(slot, 0.0);
    hi_.assign(slot, 0.0);
    for (std::size_t j = 0; j < lay.names.size(); ++j) {
      Array a;
      a.refs = lay.refs[j];
      a.placement = lay.placement[j];
      for (std::size_t r : a.refs) (p.refs[r].write ? a.writes : a.reads).push_back(r);
      arrays_.push_back(std::move(a));
    }
    hull_lo_.assign(*std::max_element(dims_.begin(), dims_.end()), 0.0);
    hull_hi_.assign(hull_lo_.size(), 0.0);
  }

  // evaluate_with's memory_words alone (the search's pruning test).
  double memory(const std::vector<double>& t) {
    compute_boxes(t);
    double m = 0.0;
    for (const Array& a : arrays_) m += hull_size(a.refs.data(), a.refs.size());
    return m;
  }

  // evaluate_with.
  TileEvaluation evaluate(const std::vector<double>& t) {
    compute_boxes(t);
    TileEvaluation e;
    for (const Array& a : arrays_) {
      const double size_words = hull_size(a.refs.data(), a.refs.size());
      double occurrences = 1.0;
      for (std::size_t l = 0; l < a.placement; ++l) {
        occurrences *= ceil_ ? std::ceil(extents_[l] / t[l]) : extents_[l] / t[l];
      }
      double cost = 0.0;
      if (!a.reads.empty()) {
        cost += occurrences * (ps_ + kind_volume(a.reads) * cost_per_word_ / processes_);
      }
      if (!a.writes.empty()) {
        cost += occurrences * (ps_ + kind_volume(a.writes) * cost_per_word_ / processes_);
      }
      e.cost += cost;
      e.memory_words += size_words;
    }
    e.product = 1.0;
    e.within_extents = true;
    for (std::size_t l = 0; l < t.size(); ++l) {
      e.product *= t[l];
      e.within_extents = e.within_extents && t[l] <= extents_[l];
    }
    e.fits_memory = e.memory_words <= memory_limit_;
    e.enough_parallelism = e.product >= processes_;
    e.feasible = e.within_extents && e.fits_memory && e.enough_parallelism;
    return e;
  }

 private:
  struct Array {
    std::vector<std::size_t> refs, reads, writes;
    std::size_t placement = 0;
  };

  // tile_box of every reference.
  void compute_boxes(const std::vector<double>& t) {
    const std::size_t loops = t.size();
    const double* c = coeff_.data();
    for (std::size_t s = 0; s < offset_.size(); ++s, c += loops) {
      double lo = offset_[s], hi = lo;
      for (std::size_t l = 0; l < loops; ++l) {
        const double v = c[l] * (t[l] - 1.0);
        lo += std::min(0.0, v);
        hi += std::max(0.0, v);
      }
      lo_[s] = lo;
      hi_[s] = hi;
    }
  }

  // real_size of the hull of the boxes of refs[0..n), the hull started at refs[0].
  double hull_size(const std::size_t* refs, std::size_t n) {
    const std::size_t dims = dims_[refs[0]];
    for (std::size_t d = 0; d < dims; ++d) {
      hull_lo_[d] = lo_[first_[refs[0]] + d];
      hull_hi_[d] = hi_[first_[refs[0]] + d];
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t f = first_[refs[i]];
      for (std::size_t d = 0; d < dims; ++d) {
        hull_lo_[d] = std::min(hull_lo_[d], lo_[f + d]);
        hull_hi_[d] = std::max(hull_hi_[d], hi_[f + d]);
      }
    }
    double s = 1.0;
    for (std::size_t d = 0; d < dims; ++d) s *= hull_hi_[d] - hull_lo_[d] + 1.0;
    return s;
  }

  bool overlap(std::size_t a, std::size_t b) const {
    const std::size_t fa = first_[a], fb = first_[b];
    for (std::size_t d = 0; d < dims_[a]; ++d) {
      if (hi_[fa + d] < lo_[fb + d] || hi_[fb + d] < lo_[fa + d]) return false;
    }
    return true;
  }

  // kind_volume: the components of "boxes overlap" among the members, each's hull size
  // summed in the order of the components' first members (as `components` orders them).
  double kind_volume(const std::vector<std::size_t>& members) {
    const std::size_t n = members.size();
    parent_.resize(n);
    std::iota(parent_.begin(), parent_.end(), std::size_t{0});
    auto find = [&](std::size_t x) {
      while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
      return x;
    };
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        if (find(i) != find(j) && overlap(members[i], members[j])) parent_[find(i)] = find(j);
      }
    }
    double v = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t root = find(i);
      bool first = true;
      for (std::size_t k = 0; k < i && first; ++k) first = find(k) != root;
      if (!first) continue;
      group_.clear();
      for (std::size_t k = i; k < n; ++k) {
        if (find(k) == root) group_.push_back(members[k]);
      }
      v += hull_size(group_.data(), group_.size());
    }
    return v;
  }

  std::vector<double> extents_, offset_, coeff_, lo_, hi_, hull_lo_, hull_hi_;
  std::vector<std::size_t> first_, dims_, parent_, group_;
  std::vector<Array> arrays_;
  double ps_, cost_per_word_, processes_, memory_limit_;
  bool ceil_;
};

}  // namespace

TileEvaluation evaluate_tiles(const TileProblem& problem, const std::vector<double>& tiles) {
  problem.validate();
  check_tiles(problem, tiles);
  const TileEvaluation e = evaluate_with(problem, layout_of(problem), tiles);
  if (!std::isfinite(e.cost) || !std::isfinite(e.memory_words) || !std::isfinite(e.product)) {
    throw std::overflow_error("evaluate_tiles: cost or memory is not finite");
  }
  return e;
}

std::vector<TileArray> tile_arrays(const TileProblem& problem, const std::vector<double>& tiles) {
  problem.validate();
  check_tiles(problem, tiles);
  return arrays_at(problem, layout_of(problem), tiles);
}

TileSearchResult integer_optimum(const TileProblem& problem, std::int64_t max_points,
                                 int threads,
                                 const std::vector<std::vector<std::int64_t>>& candidates) {
  problem.validate();
  require_in_range(max_points, std::int64_t{1}, kMaxTileVectors, "max_points",
                   " tile vectors (the cap bounds the search to about 20 min on one core)");
  if (!candidates.empty()) {
    if (candidates.size() != problem.extents.size()) {
      throw std::invalid_argument("candidates: " + std::to_string(candidates.size()) +
                                  " lists for " + std::to_string(problem.extents.size()) +
                                  " loops");
    }
    for (std::size_t l = 0; l < candidates.size(); ++l) {
      const std::string what = "candidates[" + std::to_string(l) + "]";
      if (candidates[l].empty()) throw std::invalid_argument(what + ": empty");
      if (candidates[l].size() > kMaxCandidatesPerLoop) {
        throw std::invalid_argument(what + ": at most " + std::to_string(kMaxCandidatesPerLoop) +
                                    " values, got " + std::to_string(candidates[l].size()));
      }
      for (std::size_t i = 0; i < candidates[l].size(); ++i) {
        const std::int64_t v = candidates[l][i];
        if (v < 1 || v > problem.extents[l]) {
          throw std::invalid_argument(what + "[" + std::to_string(i) + "] = " +
                                      std::to_string(v) + " is outside [1, " +
                                      std::to_string(problem.extents[l]) + "]");
        }
        if (i > 0 && v <= candidates[l][i - 1]) {
          throw std::invalid_argument(what + ": values must increase strictly");
        }
      }
    }
  }
  // Values tried for loop d: the candidates, or every integer 1..N_d.
  auto count = [&](std::size_t d) {
    return candidates.empty() ? problem.extents[d]
                              : static_cast<std::int64_t>(candidates[d].size());
  };
  auto value = [&](std::size_t d, std::int64_t idx) {
    return candidates.empty() ? idx + 1 : candidates[d][static_cast<std::size_t>(idx)];
  };
  const Layout lay = layout_of(problem);
  const std::size_t m = problem.extents.size();
  std::atomic<std::int64_t> visited{0};
  std::atomic<bool> exceeded{false};
  std::mutex best_mutex;
  TileSearchResult best;

  auto better = [](double cost, const std::vector<std::int64_t>& tiles, const TileSearchResult& b) {
    if (!b.found) return true;
    if (cost != b.cost) return cost < b.cost;
    return tiles < b.tiles;
  };

  // Each worker takes the next t_1 value from a shared counter and enumerates the rest
  // depth-first. Static ranges of t_1 left one thread the small, costly values and the
  // other the values that memory prunes at once (and ME's 64 values ran on one thread).
  const std::int64_t n0 = count(0);
  std::atomic<std::int64_t> next_v0{0};
  // The first t_1 whose smallest completion overflows memory is visited (counted) once,
  // whichever workers reach the values past it: points_visited does not depend on the
  // thread count.
  std::atomic<bool> overflow_seen{false};
  double work = 1.0;  // tile vectors at most
  for (std::size_t d = 0; d < m; ++d) work *= static_cast<double>(count(d));
  const std::size_t workers =
      work < 16384.0 ? 1
                     : std::min<std::size_t>(resolve_threads(threads), static_cast<std::size_t>(n0));
  parallel_for_chunks(
      workers,
      [&](std::size_t, std::size_t, std::size_t) {
        TileSearchResult local;
        TileEvaluator eval(problem, lay);
        std::int64_t local_feasible = 0, local_visited = 0;
        std::vector<double> t(m, 1.0);
        std::vector<std::int64_t> ti(m, 1);
        // A feasible tile vector ti: counted, and kept if it beats this worker's best.
        auto keep = [&](const TileEvaluation& e) {
          ++local_feasible;
          if (better(e.cost, ti, local)) {
            local.found = true;
            local.cost = e.cost;
            local.tiles = ti;
            local.memory_words = e.memory_words;
          }
        };
        // Recursion over loops d = 1..m-1 with t_0 fixed by the outer loop.
        auto flush_visits = [&]() {
          if (local_visited > 0) {
            if (visited.fetch_add(local_visited) + local_visited > max_points) exceeded = true;
            local_visited = 0;
          }
        };
        std::function<void(std::size_t)> descend = [&](std::size_t d) {
          for (std::int64_t idx = 0; idx < count(d); ++idx) {
            if (exceeded) return;
            const std::int64_t v = value(d, idx);
            t[d] = static_cast<double>(v);
            ti[d] = v;
            for (std::size_t r = d + 1; r < m; ++r) {
              t[r] = 1.0;
              ti[r] = 1;
            }
            ++local_visited;
            if (local_visited >= 4096) flush_visits();
            // Memory is nondecreasing in t_d: once the smallest completion overflows, stop.
            if (d + 1 < m) {
              if (eval.memory(t) > problem.memory_limit_words) break;
              descend(d + 1);
              continue;
            }
            const TileEvaluation e = eval.evaluate(t);
            if (!e.fits_memory) break;
            if (e.feasible) keep(e);
          }
        };
        while (!exceeded && !overflow_seen) {
          const std::int64_t v0 = next_v0.fetch_add(1);
          if (v0 >= n0) break;
          t.assign(m, 1.0);
          ti.assign(m, 1);
          ti[0] = value(0, v0);
          t[0] = static_cast<double>(ti[0]);
          // Memory is nondecreasing in t_1 too: every later value overflows as well.
          if (eval.memory(t) > problem.memory_limit_words) {
            overflow_seen = true;
            break;
          }
          ++local_visited;
          if (local_visited >= 4096) flush_visits();
          if (m == 1) {
            const TileEvaluation e = eval.evaluate(t);
            if (e.feasible) keep(e);
          } else {
            descend(1);
          }
        }
        flush_visits();
        std::lock_guard<std::mutex> lock(best_mutex);
        best.feasible_points += local_feasible;
        if (local.found && better(local.cost, local.tiles, best)) {
          best.found = true;
          best.cost = local.cost;
          best.tiles = local.tiles;
          best.memory_words = local.memory_words;
        }
      },
      static_cast<int>(workers), 1);
  if (overflow_seen) visited += 1;
  if (exceeded) {
    throw std::overflow_error("integer_optimum: the search would evaluate more than " +
                              std::to_string(max_points) +
                              " tile vectors; raise max_points or shrink the extents");
  }
  best.points_visited = visited.load();
  if (best.found && !std::isfinite(best.cost)) {
    throw std::overflow_error("integer_optimum: the optimal cost is not finite");
  }
  return best;
}

}  // namespace costmetrics::scratchpad
