// ExaSAT-style performance model (seed 002). See exasat.hpp for conventions and
// docs/exasat.md for every rule as implemented, the readings chosen and where the model and
// the LRU simulation part.
#include "costmetrics/exasat.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "costmetrics/checked.hpp"
#include "costmetrics/parallel.hpp"

namespace costmetrics {
namespace exasat {

namespace {

// Shortest round-trip text: std::to_string's "%f" would print 1e-320 as "0.000000".
std::string fmt(double v) { return format_value(v); }

void require_finite_positive(double v, const char* name) {
  if (!std::isfinite(v) || !(v > 0)) {
    throw std::invalid_argument(std::string(name) + ": must be positive and finite, got " +
                                fmt(v));
  }
}

void require_finite_nonnegative(double v, const std::string& name) {
  if (!std::isfinite(v) || v < 0) {
    throw std::invalid_argument(name + ": must be finite and >= 0, got " + fmt(v));
  }
}

std::string fmt_count(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Length of the union of the intervals [s, s + len) over sorted, distinct starts.
std::int64_t interval_union(const std::vector<std::int64_t>& starts, std::int64_t len) {
  std::int64_t total = 0;
  std::int64_t covered_to = std::numeric_limits<std::int64_t>::min();
  for (const auto s : starts) {
    const std::int64_t lo = std::max(s, covered_to);
    const std::int64_t hi = s + len;
    if (hi > lo) total += hi - lo;
    covered_to = std::max(covered_to, hi);
  }
  return total;
}

// Lines a window of w consecutive words can straddle when it starts anywhere in a line.
std::int64_t seg_lines(std::int64_t w, std::int64_t line_words) {
  if (w <= 0) return 0;
  return ceil_div(w - 1, line_words) + 1;
}

// A stencil as rows: (dy, dz) -> sorted distinct dx.
using Rows = std::map<std::pair<int, int>, std::vector<std::int64_t>>;

Rows rows_of(const std::vector<Offset>& offsets) {
  Rows rows;
  for (const auto& o : offsets) rows[{o.dy, o.dz}].push_back(o.dx);
  for (auto& kv : rows) {
    std::sort(kv.second.begin(), kv.second.end());
    kv.second.erase(std::unique(kv.second.begin(), kv.second.end()), kv.second.end());
  }
  return rows;
}

std::vector<Offset> unique_offsets(std::vector<Offset> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// ---------------------------------------------------------------------------------------
// Reads at each reuse level (docs/exasat.md, "Traffic"), words per block bx x by x bz.

std::int64_t reads_at_level(int level, std::int64_t bx, std::int64_t by, std::int64_t bz,
                            const std::vector<Offset>& s) {
  if (s.empty()) return 0;
  const std::int64_t cells = checked_mul(checked_mul(bx, by, "block cells"), bz, "block cells");
  switch (level) {
    case kNone:  // every access from DRAM
      return checked_mul(static_cast<std::int64_t>(s.size()), cells, "reads (no reuse)");
    case kCell: {  // each stencil row streams its x-extent once per pencil
      std::int64_t per_pencil = 0;
      for (const auto& kv : rows_of(s)) per_pencil += interval_union(kv.second, bx);
      return checked_mul(per_pencil, checked_mul(by, bz, "pencils"), "reads (cell reuse)");
    }
    case kPencil: {  // each stencil plane streams its 2D footprint once per loop plane
      std::map<int, std::vector<Offset>> planes;
      for (const auto& o : s) planes[o.dz].push_back(Offset{o.dx, o.dy, 0});
      std::int64_t per_plane = 0;
      for (const auto& kv : planes) {
        per_plane = checked_add(per_plane, footprint_words({bx, by, 1}, kv.second),
                                "reads (pencil reuse)");
      }
      return checked_mul(per_plane, bz, "reads (pencil reuse)");
    }
    default:  // plane reuse: every word of the block's footprint once
      return footprint_words({bx, by, bz}, s);
  }
}

// Working set (lines) that level `level` needs to hold for offsets `o` (docs/exasat.md).
std::int64_t ws_lines(int level, std::int64_t bx, std::int64_t by, const std::vector<Offset>& o,
                      std::int64_t line_words) {
  if (o.empty() || level == kNone) return 0;
  const Rows rows = rows_of(o);
  std::int64_t lines = 0;
  if (level == kCell) {
    for (const auto& kv : rows) {
      lines += seg_lines(kv.second.back() - kv.second.front() + 1, line_words);
    }
    return lines;
  }
  if (level == kPencil) {
    for (const auto& kv : rows) {
      lines = checked_add(
          lines, seg_lines(bx + kv.second.back() - kv.second.front(), line_words), "ws");
    }
    return lines;
  }
  // Plane: per stencil plane, the rows of its 2D footprint, each as long as the plane's
  // widest x-extent.
  std::map<int, std::pair<std::vector<std::int64_t>, std::pair<std::int64_t, std::int64_t>>> pl;
  for (const auto& kv : rows) {
    auto& entry = pl[kv.first.second];
    if (entry.first.empty()) {
      entry.second = {kv.second.front(), kv.second.back()};
    } else {
      entry.second.first = std::min(entry.second.first, kv.second.front());
      entry.second.second = std::max(entry.second.second, kv.second.back());
    }
    entry.first.push_back(kv.first.first);
  }
  for (auto& kv : pl) {
    auto& dys = kv.second.first;
    std::sort(dys.begin(), dys.end());
    const std::int64_t n_rows = interval_union(dys, by);
    const std::int64_t row_len = bx + kv.second.second.second - kv.second.second.first;
    lines = checked_add(lines, checked_mul(n_rows, seg_lines(row_len, line_words), "ws"), "ws");
  }
  return lines;
}

// The lowest level at which data written at one point of `s` is still cached when read at
// the others: all points equal -> none; one row -> cell; one plane -> pencil; else plane.
int need_level(const std::vector<Offset>& s) {
  if (s.empty()) return kNone;
  bool same_point = true, same_row = true, same_plane = true;
  for (const auto& o : s) {
    same_point = same_point && o == s.front();
    same_row = same_row && o.dy == s.front().dy && o.dz == s.front().dz;
    same_plane = same_plane && o.dz == s.front().dz;
  }
  if (same_point) return kNone;
  if (same_row) return kCell;
  if (same_plane) return kPencil;
  return kPlane;
}

enum class Role { Read, Write, ReadWrite, Produced, Scratch };

const char* role_name(Role r) {
  switch (r) {
    case Role::Read:
      return "read";
    case Role::Write:
      return "write";
    case Role::ReadWrite:
      return "read-write";
    case Role::Produced:
      return "produced";
    case Role::Scratch:
      break;
  }
  return "scratch";
}

// One array as seen by one fused group: the union of its (staggered) read and write points.
struct GroupArray {
  int array = 0;
  std::vector<Offset> reads, writes;
  Role role = Role::Read;
  int need = kNone;
  std::vector<Offset> occupancy;  // points whose lines the cache must hold
};

struct GroupPlan {
  std::vector<int> loops;
  std::vector<Offset> shifts;  // per loop of the group: the stagger of Sec. 5.2's fusion
  std::vector<GroupArray> arrays;
};

// Stagger of each loop in a fused group: a loop that writes an array read with offsets by a
// later loop of the group runs ahead by those offsets (componentwise), so that every read
// of a produced value comes after its write in sweep order.
std::vector<Offset> group_shifts(const Kernel& k, const std::vector<int>& loops) {
  const std::size_t n = loops.size();
  std::vector<Offset> shift(n);
  for (std::size_t ii = n; ii-- > 0;) {
    const Loop& li = k.loops[static_cast<std::size_t>(loops[ii])];
    Offset s{0, 0, 0};
    for (const auto& w : li.accesses) {
      if (!w.write) continue;
      const Offset& wp = w.offsets.front();
      for (std::size_t jj = ii + 1; jj < n; ++jj) {
        const Loop& lj = k.loops[static_cast<std::size_t>(loops[jj])];
        for (const auto& r : lj.accesses) {
          if (r.write || r.array != w.array) continue;
          for (const auto& o : r.offsets) {
            s.dx = std::max(s.dx, shift[jj].dx + o.dx - wp.dx);
            s.dy = std::max(s.dy, shift[jj].dy + o.dy - wp.dy);
            s.dz = std::max(s.dz, shift[jj].dz + o.dz - wp.dz);
          }
        }
      }
    }
    shift[ii] = s;
  }
  return shift;
}

std::vector<GroupPlan> plan_groups(const Kernel& k, const Groups& groups, bool write_allocate) {
  // Which groups touch each array (scratch arrays live in one group only).
  std::vector<std::set<std::size_t>> touched_by(k.arrays.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (int l : groups[g]) {
      for (const auto& a : k.loops[static_cast<std::size_t>(l)].accesses) {
        touched_by[static_cast<std::size_t>(a.array)].insert(g);
      }
    }
  }
  std::vector<GroupPlan> plans;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    GroupPlan plan;
    plan.loops = groups[g];
    plan.shifts = group_shifts(k, plan.loops);
    std::map<int, GroupArray> arrays;
    std::map<int, bool> first_is_read;
    for (std::size_t ii = 0; ii < plan.loops.size(); ++ii) {
      const Loop& loop = k.loops[static_cast<std::size_t>(plan.loops[ii])];
      const Offset sh = plan.shifts[ii];
      // Reads of a loop body come before its writes.
      for (int pass = 0; pass < 2; ++pass) {
        for (const auto& acc : loop.accesses) {
          if (acc.write != (pass == 1)) continue;
          auto& ga = arrays[acc.array];
          ga.array = acc.array;
          if (!first_is_read.count(acc.array)) first_is_read[acc.array] = !acc.write;
          auto& dst = acc.write ? ga.writes : ga.reads;
          for (const auto& o : acc.offsets) {
            dst.push_back(Offset{o.dx + sh.dx, o.dy + sh.dy, o.dz + sh.dz});
          }
        }
      }
    }
    for (auto& kv : arrays) {
      GroupArray& ga = kv.second;
      ga.reads = unique_offsets(ga.reads);
      ga.writes = unique_offsets(ga.writes);
      std::vector<Offset> both = ga.reads;
      both.insert(both.end(), ga.writes.begin(), ga.writes.end());
      both = unique_offsets(both);
      if (ga.writes.empty()) {
        ga.role = Role::Read;
        ga.occupancy = ga.reads;
      } else if (ga.reads.empty()) {
        ga.role = Role::Write;
        if (write_allocate) ga.occupancy = ga.writes;
      } else if (first_is_read[kv.first]) {
        ga.role = Role::ReadWrite;
        ga.occupancy = both;
      } else {
        const auto idx = static_cast<std::size_t>(kv.first);
        const bool scratch = k.temporary[idx] && touched_by[idx].size() == 1;
        ga.role = scratch ? Role::Scratch : Role::Produced;
        ga.need = need_level(both);
        // A scratch value read only where it is written lives in a register.
        if (!(scratch && ga.need == kNone)) ga.occupancy = both;
      }
      plan.arrays.push_back(ga);
    }
    plans.push_back(std::move(plan));
  }
  return plans;
}

struct BlockTraffic {
  std::vector<std::int64_t> read, write;  // per group array
  int level = 0;
  std::vector<double> ws_bytes;
};

BlockTraffic block_traffic(const GroupPlan& plan, const Machine& m, std::int64_t bx,
                           std::int64_t by, std::int64_t bz, int force_level) {
  BlockTraffic bt;
  const std::int64_t lw = m.line_words();
  bt.ws_bytes.assign(4, 0.0);
  for (int level = kNone; level <= kPlane; ++level) {
    std::int64_t lines = 0;
    for (const auto& ga : plan.arrays) {
      lines = checked_add(lines, ws_lines(level, bx, by, ga.occupancy, lw), "working set");
    }
    bt.ws_bytes[static_cast<std::size_t>(level)] =
        static_cast<double>(lines) * static_cast<double>(m.line_bytes);
  }
  int level = kNone;
  if (force_level >= 0) {
    level = force_level;
  } else {
    for (int l = kPlane; l >= kNone; --l) {
      if (bt.ws_bytes[static_cast<std::size_t>(l)] <= static_cast<double>(m.cache_bytes)) {
        level = l;
        break;
      }
    }
  }
  bt.level = level;
  for (const auto& ga : plan.arrays) {
    std::int64_t rd = 0, wr = 0;
    const std::int64_t written =
        ga.writes.empty() ? 0 : footprint_words({bx, by, bz}, ga.writes);
    switch (ga.role) {
      case Role::Read:
        rd = reads_at_level(level, bx, by, bz, ga.reads);
        break;
      case Role::Write:
        wr = written;
        rd = m.write_allocate ? written : 0;
        break;
      case Role::ReadWrite:
        rd = reads_at_level(level, bx, by, bz, ga.reads);
        wr = written;
        break;
      case Role::Produced:
        wr = written;
        rd = (m.write_allocate ? written : 0) +
             (level >= ga.need ? 0 : reads_at_level(level, bx, by, bz, ga.reads));
        break;
      case Role::Scratch:
        if (level < ga.need) {
          rd = reads_at_level(level, bx, by, bz, ga.reads);
          wr = written;
        }
        break;
    }
    bt.read.push_back(rd);
    bt.write.push_back(wr);
  }
  return bt;
}

std::int64_t clamp_edge(std::int64_t b, std::int64_t n) { return std::min(b, n); }

// (edge, count) classes of blocks along one dimension: full blocks and one remainder.
std::vector<std::pair<std::int64_t, std::int64_t>> block_classes(std::int64_t n, std::int64_t b) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  if (n / b > 0) out.emplace_back(b, n / b);
  if (n % b > 0) out.emplace_back(n % b, 1);
  return out;
}

GroupResult evaluate_group(const Kernel& k, const Machine& m, const Box& box,
                           const GroupPlan& plan, const Blocking& blocking, int force_level) {
  GroupResult r;
  r.loops = plan.loops;
  r.bx = clamp_edge(blocking.bx, box.nx);
  r.by = clamp_edge(blocking.by, box.ny);
  const std::int64_t cells = box.cells();
  for (int l : plan.loops) {
    r.weighted_flops +=
        weighted_flops(k.loops[static_cast<std::size_t>(l)].flops, m) * static_cast<double>(cells);
  }
  std::vector<std::int64_t> rd(plan.arrays.size(), 0), wr(plan.arrays.size(), 0);
  bool first = true;
  for (const auto& [ex, cx] : block_classes(box.nx, r.bx)) {
    for (const auto& [ey, cy] : block_classes(box.ny, r.by)) {
      const BlockTraffic bt = block_traffic(plan, m, ex, ey, box.nz, force_level);
      if (first) {
        r.level = bt.level;
        r.ws_bytes = bt.ws_bytes;
        first = false;
      }
      const std::int64_t count = checked_mul(cx, cy, "blocks");
      for (std::size_t i = 0; i < plan.arrays.size(); ++i) {
        rd[i] = checked_add(rd[i], checked_mul(count, bt.read[i], "read words"), "read words");
        wr[i] = checked_add(wr[i], checked_mul(count, bt.write[i], "write words"), "write words");
      }
    }
  }
  for (std::size_t i = 0; i < plan.arrays.size(); ++i) {
    const auto& ga = plan.arrays[i];
    ArrayTraffic at;
    at.array = k.arrays[static_cast<std::size_t>(ga.array)];
    at.role = role_name(ga.role);
    at.read_words = rd[i];
    at.write_words = wr[i];
    at.need_level = ga.need;
    r.read_words = checked_add(r.read_words, rd[i], "read words");
    r.write_words = checked_add(r.write_words, wr[i], "write words");
    r.arrays.push_back(std::move(at));
  }
  return r;
}

Estimate summarize(std::vector<GroupResult> groups, const Machine& m) {
  Estimate e;
  std::int64_t rd = 0, wr = 0;
  for (const auto& g : groups) {
    e.weighted_flops += g.weighted_flops;
    rd = checked_add(rd, g.read_words, "read words");
    wr = checked_add(wr, g.write_words, "write words");
  }
  e.groups = std::move(groups);
  const double wb = static_cast<double>(m.word_bytes);
  e.read_bytes = static_cast<double>(rd) * wb;
  e.write_bytes = static_cast<double>(wr) * wb;
  e.traffic_bytes = e.read_bytes + e.write_bytes;
  if (!(e.weighted_flops > 0) || !std::isfinite(e.weighted_flops)) {
    throw std::invalid_argument(
        "kernel: total weighted flops must be positive and finite (C/alpha and bytes per flop "
        "need C > 0), got " + fmt(e.weighted_flops));
  }
  e.t_compute_s = e.weighted_flops / m.alpha_flops_per_s;  // T_c = C / alpha (Sec. 4.2)
  e.t_memory_s = e.traffic_bytes / m.beta_bytes_per_s;     // T_d = D / beta
  e.t_s = std::max(e.t_compute_s, e.t_memory_s);           // T = max(T_c, T_d)
  e.bytes_per_flop = e.traffic_bytes / e.weighted_flops;
  if (!std::isfinite(e.t_s) || !std::isfinite(e.bytes_per_flop)) {
    throw std::overflow_error("estimate: result is not finite (inputs too large)");
  }
  return e;
}

void check_force_level(int force_level) {
  if (force_level < -1 || force_level > kPlane) {
    throw std::invalid_argument("force_level: must be -1 (automatic) or 0..3, got " +
                                std::to_string(force_level));
  }
}

const Blocking& blocking_for(const std::vector<Blocking>& blockings, std::size_t g,
                             std::size_t n_groups) {
  if (blockings.size() != 1 && blockings.size() != n_groups) {
    throw std::invalid_argument("blockings: need 1 entry or one per group (" +
                                std::to_string(n_groups) + "), got " +
                                std::to_string(blockings.size()));
  }
  return blockings.size() == 1 ? blockings.front() : blockings[g];
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Validation

void Machine::validate() const {
  require_finite_positive(alpha_flops_per_s, "alpha_flops_per_s");
  require_finite_positive(beta_bytes_per_s, "beta_bytes_per_s");
  require_positive(cache_bytes, "cache_bytes");
  require_positive(word_bytes, "word_bytes");
  require_positive(line_bytes, "line_bytes");
  if (line_bytes % word_bytes != 0) {
    throw std::invalid_argument("line_bytes: must be a multiple of word_bytes (" +
                                std::to_string(word_bytes) + "), got " +
                                std::to_string(line_bytes));
  }
  if (cache_bytes < line_bytes) {
    throw std::invalid_argument("cache_bytes: must hold at least one line (" +
                                std::to_string(line_bytes) + " bytes), got " +
                                std::to_string(cache_bytes));
  }
  require_finite_nonnegative(divide_weight, "divide_weight");
  require_finite_nonnegative(transcendental_weight, "transcendental_weight");
}

void Flops::validate() const {
  require_finite_nonnegative(adds, "adds");
  require_finite_nonnegative(muls, "muls");
  require_finite_nonnegative(divides, "divides");
  require_finite_nonnegative(transcendentals, "transcendentals");
}

void Box::validate() const {
  const std::int64_t v[3] = {nx, ny, nz};
  const char* names[3] = {"nx", "ny", "nz"};
  for (int d = 0; d < 3; ++d) {
    require_positive(v[d], names[d]);
    if (v[d] > kMaxBoxEdge) {
      throw std::invalid_argument(std::string(names[d]) + ": at most " +
                                  std::to_string(kMaxBoxEdge) + " cells, got " +
                                  std::to_string(v[d]));
    }
  }
}

std::int64_t Box::cells() const {
  return checked_mul(checked_mul(nx, ny, "box cells"), nz, "box cells");
}

void Blocking::validate() const {
  require_positive(bx, "bx");
  require_positive(by, "by");
}

void Kernel::validate() const {
  if (loops.empty()) throw std::invalid_argument("kernel.loops: at least one loop is required");
  if (loops.size() > kMaxLoops) {
    throw std::invalid_argument("kernel.loops: at most " + std::to_string(kMaxLoops) +
                                " loops, got " + std::to_string(loops.size()));
  }
  if (temporary.size() != arrays.size()) {
    throw std::invalid_argument("kernel.temporary: one flag per array (" +
                                std::to_string(arrays.size()) + "), got " +
                                std::to_string(temporary.size()));
  }
  std::set<std::string> names;
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    if (arrays[a].empty()) {
      throw std::invalid_argument("kernel.arrays[" + std::to_string(a) + "]: empty name");
    }
    if (!names.insert(arrays[a]).second) {
      throw std::invalid_argument("kernel.arrays: duplicate array name '" + arrays[a] + "'");
    }
  }
  for (std::size_t l = 0; l < loops.size(); ++l) {
    const Loop& loop = loops[l];
    const std::string where = "kernel.loops[" + std::to_string(l) + "] ('" + loop.name + "')";
    try {
      loop.flops.validate();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + ".flops." + e.what());
    }
    std::set<std::pair<int, bool>> seen;
    for (std::size_t i = 0; i < loop.accesses.size(); ++i) {
      const Access& acc = loop.accesses[i];
      const std::string aw = where + ".accesses[" + std::to_string(i) + "]";
      if (acc.array < 0 || static_cast<std::size_t>(acc.array) >= arrays.size()) {
        throw std::invalid_argument(aw + ": array index " + std::to_string(acc.array) +
                                    " out of range (" + std::to_string(arrays.size()) +
                                    " arrays)");
      }
      if (!seen.insert({acc.array, acc.write}).second) {
        throw std::invalid_argument(aw + ": array '" + arrays[static_cast<std::size_t>(acc.array)] +
                                    "' is " + (acc.write ? "written" : "read") +
                                    " twice in one loop; list all its points in one access");
      }
      if (acc.offsets.empty()) throw std::invalid_argument(aw + ": no stencil points");
      if (acc.offsets.size() > kMaxPointsPerAccess) {
        throw std::invalid_argument(aw + ": at most " + std::to_string(kMaxPointsPerAccess) +
                                    " stencil points, got " + std::to_string(acc.offsets.size()));
      }
      if (acc.write && acc.offsets.size() != 1) {
        throw std::invalid_argument(aw + ": a write has exactly one point, got " +
                                    std::to_string(acc.offsets.size()));
      }
      for (const auto& o : acc.offsets) {
        for (int d : {o.dx, o.dy, o.dz}) {
          if (d < -kMaxOffset || d > kMaxOffset) {
            throw std::invalid_argument(aw + ": offset " + std::to_string(d) + " outside [-" +
                                        std::to_string(kMaxOffset) + ", " +
                                        std::to_string(kMaxOffset) + "]");
          }
        }
      }
    }
  }
}

double weighted_flops(const Flops& f, const Machine& m) {
  // Weighted flop count (Sec. 4.2, Fig. 7): divides and transcendentals weighted by their
  // cost relative to an add or multiply.
  const double r =
      f.adds + f.muls + m.divide_weight * f.divides + m.transcendental_weight * f.transcendentals;
  // Finite counts can still sum or weigh past DBL_MAX; never return inf (as estimate).
  if (!std::isfinite(r)) {
    throw std::overflow_error("weighted_flops: result is not finite (adds = " + fmt(f.adds) +
                              ", muls = " + fmt(f.muls) + ", divides = " + fmt(f.divides) +
                              " x divide_weight " + fmt(m.divide_weight) +
                              ", transcendentals = " + fmt(f.transcendentals) +
                              " x transcendental_weight " + fmt(m.transcendental_weight) + ")");
  }
  return r;
}

double peak_bytes_per_flop(const Machine& m) {
  m.validate();
  const double r = m.beta_bytes_per_s / m.alpha_flops_per_s;  // Table 2: peak B/F = beta / alpha
  // A tiny alpha makes the ratio overflow although both rates are finite and positive.
  if (!std::isfinite(r)) {
    throw std::overflow_error("peak_bytes_per_flop: result is not finite (beta_bytes_per_s = " +
                              fmt(m.beta_bytes_per_s) + ", alpha_flops_per_s = " +
                              fmt(m.alpha_flops_per_s) + ")");
  }
  return r;
}

const char* level_name(int level) {
  switch (level) {
    case kNone:
      return "none";
    case kCell:
      return "cell";
    case kPencil:
      return "pencil";
    case kPlane:
      return "plane";
    default:
      break;
  }
  throw std::invalid_argument("level: must be 0..3, got " + std::to_string(level));
}

// ---------------------------------------------------------------------------------------
// Fusion

bool stencil_dependency(const Kernel& k, int i, int j) {
  const auto n = static_cast<int>(k.loops.size());
  if (i < 0 || i >= n || j < 0 || j >= n) {
    throw std::invalid_argument("loop index out of range");
  }
  auto depends = [&](const Loop& w, const Loop& r) {
    for (const auto& wa : w.accesses) {
      if (!wa.write) continue;
      for (const auto& ra : r.accesses) {
        if (ra.write || ra.array != wa.array) continue;
        for (const auto& o : ra.offsets) {
          if (!(o == wa.offsets.front())) return true;
        }
      }
    }
    return false;
  };
  const Loop& a = k.loops[static_cast<std::size_t>(i)];
  const Loop& b = k.loops[static_cast<std::size_t>(j)];
  return depends(a, b) || depends(b, a);
}

Groups fusion_groups(const Kernel& k, FusionStrategy strategy) {
  k.validate();
  const auto n = static_cast<int>(k.loops.size());
  Groups groups;
  if (strategy == FusionStrategy::Aggressive) {
    groups.emplace_back();
    for (int l = 0; l < n; ++l) groups.back().push_back(l);
    return groups;
  }
  for (int l = 0; l < n; ++l) {
    bool join = strategy == FusionStrategy::Simple && !groups.empty();
    if (join) {
      for (int other : groups.back()) join = join && !stencil_dependency(k, other, l);
    }
    if (join) {
      groups.back().push_back(l);
    } else {
      groups.push_back({l});
    }
  }
  return groups;
}

void validate_groups(const Kernel& k, const Groups& groups) {
  int next = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty()) {
      throw std::invalid_argument("groups[" + std::to_string(g) + "]: empty group");
    }
    for (int l : groups[g]) {
      if (l != next) {
        throw std::invalid_argument(
            "groups: must list the loops 0.." + std::to_string(k.loops.size() - 1) +
            " once each, in order (consecutive loops fused); expected loop " +
            std::to_string(next) + ", got " + std::to_string(l));
      }
      ++next;
    }
  }
  if (next != static_cast<int>(k.loops.size())) {
    throw std::invalid_argument("groups: cover " + std::to_string(next) + " of " +
                                std::to_string(k.loops.size()) + " loops");
  }
}

// ---------------------------------------------------------------------------------------
// Footprint of a block

std::int64_t footprint_words(const std::array<std::int64_t, 3>& block,
                             const std::vector<Offset>& offsets) {
  for (int d = 0; d < 3; ++d) require_positive(block[static_cast<std::size_t>(d)], "block edge");
  if (offsets.empty()) return 0;
  const std::int64_t bx = block[0], by = block[1], bz = block[2];
  const Rows rows = rows_of(offsets);
  // Breakpoints where the set of active stencil rows changes.
  std::vector<std::int64_t> yb, zb;
  for (const auto& kv : rows) {
    yb.push_back(kv.first.first);
    yb.push_back(kv.first.first + by);
    zb.push_back(kv.first.second);
    zb.push_back(kv.first.second + bz);
  }
  for (auto* v : {&yb, &zb}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  std::int64_t total = 0;
  std::vector<std::int64_t> starts;
  for (std::size_t iz = 0; iz + 1 < zb.size(); ++iz) {
    const std::int64_t z = zb[iz];
    for (std::size_t iy = 0; iy + 1 < yb.size(); ++iy) {
      const std::int64_t y = yb[iy];
      starts.clear();
      for (const auto& kv : rows) {
        const std::int64_t ry = y - kv.first.first, rz = z - kv.first.second;
        if (ry >= 0 && ry < by && rz >= 0 && rz < bz) {
          starts.insert(starts.end(), kv.second.begin(), kv.second.end());
        }
      }
      if (starts.empty()) continue;
      std::sort(starts.begin(), starts.end());
      starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
      const std::int64_t len = interval_union(starts, bx);
      const std::int64_t area = checked_mul(yb[iy + 1] - y, zb[iz + 1] - z, "footprint");
      total = checked_add(total, checked_mul(area, len, "footprint"), "footprint");
    }
  }
  return total;
}

// ---------------------------------------------------------------------------------------
// The model

Estimate evaluate(const Kernel& k, const Machine& m, const Box& box, const Groups& groups,
                  const std::vector<Blocking>& blockings, int force_level) {
  k.validate();
  m.validate();
  box.validate();
  validate_groups(k, groups);
  check_force_level(force_level);
  for (const auto& b : blockings) b.validate();
  const auto plans = plan_groups(k, groups, m.write_allocate);
  std::vector<GroupResult> results;
  for (std::size_t g = 0; g < plans.size(); ++g) {
    results.push_back(evaluate_group(k, m, box, plans[g],
                                     blocking_for(blockings, g, plans.size()), force_level));
  }
  return summarize(std::move(results), m);
}

Estimate best_blocking(const Kernel& k, const Machine& m, const Box& box, const Groups& groups,
                       const std::vector<std::int64_t>& candidates) {
  k.validate();
  m.validate();
  box.validate();
  validate_groups(k, groups);
  if (candidates.empty()) throw std::invalid_argument("candidates: at least one block edge");
  if (candidates.size() > kMaxBlockCandidates) {
    throw std::invalid_argument("candidates: at most " + std::to_string(kMaxBlockCandidates) +
                                " block edges, got " +
                                std::to_string(candidates.size()));
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    require_positive(candidates[i], ("candidates[" + std::to_string(i) + "]").c_str());
  }
  std::set<std::int64_t> xs, ys;
  for (auto c : candidates) {
    xs.insert(clamp_edge(c, box.nx));
    ys.insert(clamp_edge(c, box.ny));
  }
  const auto plans = plan_groups(k, groups, m.write_allocate);
  std::vector<GroupResult> results;
  for (const auto& plan : plans) {
    bool have = false;
    GroupResult best;
    std::int64_t best_words = 0;
    for (auto bx : xs) {
      for (auto by : ys) {
        GroupResult r = evaluate_group(k, m, box, plan, Blocking{bx, by}, -1);
        const std::int64_t words = checked_add(r.read_words, r.write_words, "words");
        // Ties go to the larger block (fewer blocks, less loop overhead in practice).
        if (!have || words < best_words ||
            (words == best_words && bx * by > best.bx * best.by)) {
          best = std::move(r);
          best_words = words;
          have = true;
        }
      }
    }
    results.push_back(std::move(best));
  }
  return summarize(std::move(results), m);
}

// ---------------------------------------------------------------------------------------
// LRU simulation

std::int64_t simulated_accesses(const Kernel& k, const Box& box, const Groups& groups) {
  k.validate();
  box.validate();
  validate_groups(k, groups);
  const std::int64_t cells = box.cells();
  std::int64_t per_cell = 0;
  for (const auto& loop : k.loops) {
    for (const auto& a : loop.accesses) {
      per_cell = checked_add(per_cell, static_cast<std::int64_t>(a.offsets.size()), "accesses");
    }
  }
  return checked_mul(per_cell, cells, "simulated accesses");
}

namespace {

class LruCache {
 public:
  LruCache(std::int64_t n_lines, std::int64_t capacity)
      : capacity_(capacity),
        prev_(static_cast<std::size_t>(n_lines), -1),
        next_(static_cast<std::size_t>(n_lines), -1),
        state_(static_cast<std::size_t>(n_lines), 0) {}

  // Returns true on a hit. On a miss, the caller decides whether to insert.
  bool touch(std::int32_t line, bool dirty) {
    auto& st = state_[static_cast<std::size_t>(line)];
    if (st == 0) return false;
    if (dirty) st = 2;
    unlink(line);
    push_front(line);
    return true;
  }

  // Inserts `line` (not present). Returns the evicted line and whether it was dirty.
  std::pair<std::int32_t, bool> insert(std::int32_t line, bool dirty) {
    std::pair<std::int32_t, bool> evicted{-1, false};
    if (size_ == capacity_) {
      const std::int32_t victim = tail_;
      evicted = {victim, state_[static_cast<std::size_t>(victim)] == 2};
      unlink(victim);
      state_[static_cast<std::size_t>(victim)] = 0;
      --size_;
    }
    state_[static_cast<std::size_t>(line)] = dirty ? 2 : 1;
    push_front(line);
    ++size_;
    return evicted;
  }

  // Empties the cache, calling f(line, dirty) for every line.
  template <typename F>
  void flush(F&& f) {
    for (std::int32_t l = head_; l != -1;) {
      const std::int32_t nx = next_[static_cast<std::size_t>(l)];
      f(l, state_[static_cast<std::size_t>(l)] == 2);
      state_[static_cast<std::size_t>(l)] = 0;
      prev_[static_cast<std::size_t>(l)] = next_[static_cast<std::size_t>(l)] = -1;
      l = nx;
    }
    head_ = tail_ = -1;
    size_ = 0;
  }

 private:
  void unlink(std::int32_t l) {
    const auto i = static_cast<std::size_t>(l);
    if (prev_[i] != -1) next_[static_cast<std::size_t>(prev_[i])] = next_[i]; else head_ = next_[i];
    if (next_[i] != -1) prev_[static_cast<std::size_t>(next_[i])] = prev_[i]; else tail_ = prev_[i];
    prev_[i] = next_[i] = -1;
  }
  void push_front(std::int32_t l) {
    const auto i = static_cast<std::size_t>(l);
    prev_[i] = -1;
    next_[i] = head_;
    if (head_ != -1) prev_[static_cast<std::size_t>(head_)] = l;
    head_ = l;
    if (tail_ == -1) tail_ = l;
  }

  std::int64_t capacity_;
  std::int64_t size_ = 0;
  std::int32_t head_ = -1, tail_ = -1;
  std::vector<std::int32_t> prev_, next_;
  std::vector<std::uint8_t> state_;
};

struct Layout {
  std::vector<std::int64_t> base;              // first word of each array
  std::vector<std::array<std::int64_t, 3>> lo;  // ghost cells below 0 per dimension
  std::vector<std::int64_t> pitch_x, pitch_y;  // padded row length and rows per plane
  // Scratch arrays are ring buffers of ring_planes[a] planes (0: a full array), the
  // temporary buffers of the staggered fused loop (Sec. 5.2); plane z + dz lives at
  // (z + dz - ring_min_dz[a]) mod ring_planes[a].
  std::vector<std::int64_t> ring_planes, ring_min_dz;
  std::int64_t total_words = 0;
};

Layout make_layout(const Kernel& k, const Box& box, const std::vector<GroupPlan>& plans,
                   std::int64_t line_words) {
  const std::size_t na = k.arrays.size();
  Layout L;
  L.base.assign(na, 0);
  L.lo.assign(na, {0, 0, 0});
  std::vector<std::array<std::int64_t, 3>> hi(na, {0, 0, 0});
  for (const auto& plan : plans) {
    for (const auto& ga : plan.arrays) {
      auto& lo = L.lo[static_cast<std::size_t>(ga.array)];
      auto& h = hi[static_cast<std::size_t>(ga.array)];
      for (const auto* set : {&ga.reads, &ga.writes}) {
        for (const auto& o : *set) {
          const std::int64_t d[3] = {o.dx, o.dy, o.dz};
          for (int i = 0; i < 3; ++i) {
            lo[static_cast<std::size_t>(i)] = std::max(lo[static_cast<std::size_t>(i)], -d[i]);
            h[static_cast<std::size_t>(i)] = std::max(h[static_cast<std::size_t>(i)], d[i]);
          }
        }
      }
    }
  }
  L.pitch_x.assign(na, 0);
  L.pitch_y.assign(na, 0);
  L.ring_planes.assign(na, 0);
  L.ring_min_dz.assign(na, 0);
  for (const auto& plan : plans) {
    for (const auto& ga : plan.arrays) {
      if (ga.role != Role::Scratch || ga.occupancy.empty()) continue;
      int lo_z = ga.occupancy.front().dz, hi_z = lo_z;
      for (const auto& o : ga.occupancy) {
        lo_z = std::min(lo_z, o.dz);
        hi_z = std::max(hi_z, o.dz);
      }
      L.ring_planes[static_cast<std::size_t>(ga.array)] = hi_z - lo_z + 1;
      L.ring_min_dz[static_cast<std::size_t>(ga.array)] = lo_z;
    }
  }
  std::int64_t next = 0;
  for (std::size_t a = 0; a < na; ++a) {
    const std::int64_t ex = box.nx + L.lo[a][0] + hi[a][0];
    const std::int64_t ey = box.ny + L.lo[a][1] + hi[a][1];
    const std::int64_t ez = L.ring_planes[a] > 0 ? L.ring_planes[a] : box.nz + L.lo[a][2] + hi[a][2];
    L.pitch_x[a] = ceil_div(ex, line_words) * line_words;  // rows start on a line
    L.pitch_y[a] = ey;
    L.base[a] = next;
    next = checked_add(next, checked_mul(checked_mul(L.pitch_x[a], ey, "layout"), ez, "layout"),
                       "layout");
  }
  L.total_words = next;
  return L;
}

Simulation simulate_impl(const Kernel& k, const Machine& m, const Box& box,
                         const std::vector<GroupPlan>& plans,
                         const std::vector<Blocking>& blockings, const Layout& L,
                         std::int64_t accesses) {
  const std::int64_t lw = m.line_words();
  const std::int64_t n_lines = ceil_div(L.total_words, lw);
  LruCache cache(n_lines, m.cache_bytes / m.line_bytes);
  Simulation sim;
  sim.accesses = accesses;
  // Which array owns a line (for dropping scratch lines at the end of a group).
  auto owner = [&](std::int64_t line) {
    const std::int64_t word = line * lw;
    const auto it = std::upper_bound(L.base.begin(), L.base.end(), word);
    return static_cast<std::size_t>(it - L.base.begin() - 1);
  };
  for (std::size_t g = 0; g < plans.size(); ++g) {
    const GroupPlan& plan = plans[g];
    const Blocking& blk = blocking_for(blockings, g, plans.size());
    const std::int64_t bx = clamp_edge(blk.bx, box.nx), by = clamp_edge(blk.by, box.ny);
    std::vector<std::uint8_t> scratch(k.arrays.size(), 0), produced(k.arrays.size(), 0);
    for (const auto& ga : plan.arrays) {
      scratch[static_cast<std::size_t>(ga.array)] = ga.role == Role::Scratch;
      produced[static_cast<std::size_t>(ga.array)] =
          ga.role == Role::Scratch || ga.role == Role::Produced;
    }
    // The stream of one cell: per loop, reads then writes, each at (cell + shift + offset).
    struct Ref {
      std::size_t array;
      Offset at;
      bool write;
    };
    std::vector<std::uint8_t> in_register(k.arrays.size(), 0);
    for (const auto& ga : plan.arrays) {
      in_register[static_cast<std::size_t>(ga.array)] =
          ga.role == Role::Scratch && ga.occupancy.empty();
    }
    std::vector<Ref> refs;
    for (std::size_t ii = 0; ii < plan.loops.size(); ++ii) {
      const Loop& loop = k.loops[static_cast<std::size_t>(plan.loops[ii])];
      const Offset sh = plan.shifts[ii];
      for (int pass = 0; pass < 2; ++pass) {
        for (const auto& acc : loop.accesses) {
          if (acc.write != (pass == 1)) continue;
          if (in_register[static_cast<std::size_t>(acc.array)]) continue;  // a scalar
          for (const auto& o : acc.offsets) {
            refs.push_back(Ref{static_cast<std::size_t>(acc.array),
                               Offset{o.dx + sh.dx, o.dy + sh.dy, o.dz + sh.dz}, acc.write});
          }
        }
      }
    }
    std::int64_t rd = 0, wr = 0;
    auto access = [&](const Ref& ref, std::int64_t x, std::int64_t y, std::int64_t z) {
      const std::size_t a = ref.array;
      const std::int64_t plane =
          L.ring_planes[a] > 0 ? (z + ref.at.dz - L.ring_min_dz[a]) % L.ring_planes[a]
                               : z + ref.at.dz + L.lo[a][2];
      const std::int64_t word =
          L.base[a] + (plane * L.pitch_y[a] + (y + ref.at.dy + L.lo[a][1])) * L.pitch_x[a] +
          (x + ref.at.dx + L.lo[a][0]);
      const auto line = static_cast<std::int32_t>(word / lw);
      if (cache.touch(line, ref.write)) return;
      bool fetch = true;
      if (ref.write) {
        if (produced[a]) {
          fetch = m.write_allocate && !scratch[a];  // a buffer produced in this group
        } else if (!m.write_allocate) {
          wr += m.word_bytes;  // cache bypass: the store goes straight to DRAM
          return;
        }
      }
      if (fetch) rd += m.line_bytes;
      const auto ev = cache.insert(line, ref.write);
      if (ev.first != -1 && ev.second) wr += m.line_bytes;
    };
    for (std::int64_t y0 = 0; y0 < box.ny; y0 += by) {
      const std::int64_t y1 = std::min(box.ny, y0 + by);
      for (std::int64_t x0 = 0; x0 < box.nx; x0 += bx) {
        const std::int64_t x1 = std::min(box.nx, x0 + bx);
        for (std::int64_t z = 0; z < box.nz; ++z) {
          for (std::int64_t y = y0; y < y1; ++y) {
            for (std::int64_t x = x0; x < x1; ++x) {
              for (const auto& ref : refs) access(ref, x, y, z);
            }
          }
        }
      }
    }
    // End of the group: dirty lines go back to DRAM, except dead scratch buffers.
    cache.flush([&](std::int32_t line, bool dirty) {
      if (dirty && !scratch[owner(line)]) wr += m.line_bytes;
    });
    sim.read_bytes += rd;
    sim.write_bytes += wr;
    sim.group_traffic_bytes.push_back(rd + wr);
  }
  sim.traffic_bytes = sim.read_bytes + sim.write_bytes;
  return sim;
}

struct SimSetup {
  std::vector<GroupPlan> plans;
  Layout layout;
  std::int64_t accesses = 0;
};

SimSetup sim_setup(const Kernel& k, const Machine& m, const Box& box, const Groups& groups,
                   const std::vector<Blocking>& blockings, std::int64_t max_accesses) {
  m.validate();
  for (const auto& b : blockings) b.validate();
  (void)blocking_for(blockings, 0, groups.size());
  if (max_accesses <= 0 || max_accesses > kHardMaxSimAccesses) {
    throw std::invalid_argument("max_accesses: must be in 1.." +
                                std::to_string(kHardMaxSimAccesses) + ", got " +
                                std::to_string(max_accesses));
  }
  SimSetup s;
  k.validate();
  box.validate();
  double approx = 0;  // the same count in floating point, so that huge boxes do not overflow
  for (const auto& loop : k.loops) {
    for (const auto& a : loop.accesses) approx += static_cast<double>(a.offsets.size());
  }
  approx *= static_cast<double>(box.nx) * static_cast<double>(box.ny) * static_cast<double>(box.nz);
  s.accesses = approx > static_cast<double>(max_accesses) ? std::numeric_limits<std::int64_t>::max()
                                                          : simulated_accesses(k, box, groups);
  if (s.accesses > max_accesses) {
    throw std::invalid_argument(
        "box: the LRU simulation would make " + fmt_count(approx) +
        " accesses, above max_accesses = " + std::to_string(max_accesses) +
        "; simulate a smaller box (the model itself has no such limit)");
  }
  s.plans = plan_groups(k, groups, m.write_allocate);
  s.layout = make_layout(k, box, s.plans, m.line_words());
  const std::int64_t n_lines = ceil_div(s.layout.total_words, m.line_words());
  if (n_lines > std::numeric_limits<std::int32_t>::max() / 2 ||
      n_lines > 8 * std::max<std::int64_t>(s.accesses, 1024)) {
    throw std::invalid_argument("box: the arrays span " + std::to_string(n_lines) +
                                " lines, too many to simulate");
  }
  return s;
}

}  // namespace

Simulation simulate_lru(const Kernel& k, const Machine& m, const Box& box, const Groups& groups,
                        const std::vector<Blocking>& blockings, std::int64_t max_accesses) {
  const SimSetup s = sim_setup(k, m, box, groups, blockings, max_accesses);
  return simulate_impl(k, m, box, s.plans, blockings, s.layout, s.accesses);
}

std::vector<Simulation> simulate_lru_sweep(const Kernel& k, const Machine& m, const Box& box,
                                           const Groups& groups,
                                           const std::vector<Blocking>& blockings,
                                           const std::vector<std::int64_t>& cache_bytes,
                                           std::int64_t max_accesses, int threads) {
  require_in_range(threads, 0, 1024, "threads");
  const SimSetup s = sim_setup(k, m, box, groups, blockings, max_accesses);
  if (cache_bytes.size() > kMaxCacheSizes) {
    throw std::invalid_argument("cache_bytes: at most " + std::to_string(kMaxCacheSizes) +
                                " sizes, got " +
                                std::to_string(cache_bytes.size()));
  }
  std::vector<Machine> machines(cache_bytes.size(), m);
  for (std::size_t i = 0; i < cache_bytes.size(); ++i) {
    machines[i].cache_bytes = cache_bytes[i];
    try {
      machines[i].validate();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("cache_bytes[" + std::to_string(i) + "]: " + e.what());
    }
  }
  // Each simulation holds ~9 bytes per line of the address space; cap the threads so that
  // the sweep's memory stays bounded.
  std::vector<Simulation> out(cache_bytes.size());
  const std::size_t min_per_thread = 1;
  const int use_threads = std::min<int>(static_cast<int>(resolve_threads(threads)), 8);
  parallel_for_chunks(
      cache_bytes.size(),
      [&](std::size_t begin, std::size_t end, std::size_t) {
        for (std::size_t i = begin; i < end; ++i) {
          out[i] = simulate_impl(k, machines[i], box, s.plans, blockings, s.layout, s.accesses);
        }
      },
      use_threads, min_per_thread);
  return out;
}

}  // namespace exasat
}  // namespace costmetrics
