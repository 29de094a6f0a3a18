// SPDX-License-Identifier: MIT
#include "flexuq/config/DeckJob.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/BdfReader.hpp"

#include <filesystem>
#include <iomanip>
#include <set>
#include <sstream>

namespace flexuq::io {

namespace {

bool overridden(const std::vector<std::string>& overrides, const std::string& key) {
  for (const auto& o : overrides)
    if (o.rfind(key + "=", 0) == 0 || o.rfind(key + ".", 0) == 0) return true;
  return false;
}

void modes_keys(std::ostringstream& y, const BdfDeck& deck, const std::string& path, const std::string& prefix,
                const std::vector<std::string>& overrides, long qset_cap, const char* indent) {
  const BdfDeck::Eigrl* e = deck.method_eigrl();
  const bool user_count = overridden(overrides, prefix + ".count"), user_band = overridden(overrides, prefix + ".band");
  if (user_count || user_band) return;
  if (e && e->nd) {
    long nd = *e->nd;
    if (qset_cap > 0 && nd > qset_cap) nd = qset_cap;
    y << indent << "count: " << nd << "\n";
  } else if (e && e->v2) {
    y << indent << "band: [" << e->v1.value_or(0.0) << ", " << *e->v2 << "]\n";
  } else if (qset_cap > 0) {
    y << indent << "count: " << qset_cap << "\n";
  } else {
    throw InputError(path + ": the deck selects no EIGRL (case control METHOD =) and has no q-set: say how many modes "
                            "with --set " + prefix + ".count=N or --set '" + prefix + ".band=[f1, f2]'");
  }
}

} // namespace

std::string deck_job_yaml(const std::string& path, const std::string& verb, const std::vector<std::string>& overrides) {
  BdfDeck deck;
  const Mesh mesh = read_bdf(path, &deck);
  std::ostringstream y;
  y << std::setprecision(17);
  const std::string stem = std::filesystem::path(path).stem().string();
  y << "# job implied by the Nastran deck " << path << "\n";
  y << "model:\n  mesh: \"" << std::filesystem::path(path).filename().string() << "\"\n";
  y << "output: \"" << stem << ".h5\"\n";
  if (verb == "modes") {
    std::vector<std::string> fixed;
    if (deck.spc) {
      const std::string set = "SPC" + std::to_string(*deck.spc);
      if (!mesh.node_sets.count(set))
        throw InputError(path + ": case control SPC = " + std::to_string(*deck.spc) +
                         " selects no constraint on a mesh node (no SPC/SPC1 card with that set id)");
      fixed.push_back(set);
    }
    if (mesh.node_sets.count("PS")) fixed.push_back("PS");
    std::ostringstream body;
    body << std::setprecision(17);
    if (!fixed.empty() && !overridden(overrides, "modes.fixed")) {
      body << "  fixed: [";
      for (std::size_t i = 0; i < fixed.size(); ++i) body << (i ? ", " : "") << fixed[i];
      body << "]\n";
    }
    modes_keys(body, deck, path, "modes", overrides, 0, "  ");
    if (!body.str().empty()) y << "modes:\n" << body.str();
    return y.str();
  }
  if (verb != "reduce") throw InputError(path + ": a Nastran deck runs as a 'modes' or 'reduce' job, not '" + verb + "'");
  if (deck.spc || mesh.node_sets.count("PS"))
    throw InputError(path + ": the deck constrains grids (case control SPC or GRID PS); a reduce job takes its supports "
                            "from the interfaces: remove them or list the sets as interfaces in a YAML job");
  y << "reduce:\n  method: craig-bampton\n";
  if (!overridden(overrides, "reduce.interfaces")) {
    std::set<long> refs;
    y << "  interfaces:\n";
    int n = 0;
    for (const char* s : {"BSET", "ASET"})
      if (mesh.node_sets.count(s)) {
        y << "    - {set: " << s << "}\n";
        ++n;
      }
    for (const auto* list : {&deck.bset, &deck.aset})
      for (const auto& e : *list)
        if (deck.dropped_grids.count(e.grid)) refs.insert(e.grid);
    for (const auto& r : deck.rigids) {
      if (!refs.count(r.ref_grid)) continue;
      const std::string set = (r.rbe2 ? "RBE2_" : "RBE3_") + std::to_string(r.eid);
      y << "    - {set: " << set << ", kind: " << (r.rbe2 ? "rbe2" : "rbe3") << ", ref: [" << r.ref_xyz[0] << ", "
        << r.ref_xyz[1] << ", " << r.ref_xyz[2] << "], grid: " << r.ref_grid;
      if (!r.rbe2) {
        y << ", weights: [";
        for (std::size_t i = 0; i < r.weights.size(); ++i) y << (i ? ", " : "") << r.weights[i];
        y << "]";
      }
      y << "}\n";
      refs.erase(r.ref_grid);
      ++n;
    }
    if (!refs.empty())
      throw InputError(path + ": b-set grid " + std::to_string(*refs.begin()) +
                       " belongs to no element and is no RBE2/RBE3 reference grid");
    if (n == 0)
      throw InputError(path + ": the deck has no b-set (BSET/BSET1 or ASET/ASET1): give the interfaces with --set "
                              "'reduce.interfaces=[{set: NAME}]'");
  }
  std::ostringstream body;
  body << std::setprecision(17);
  modes_keys(body, deck, path, "reduce.modes", overrides, deck.qset_spoints, "    ");
  if (!body.str().empty()) y << "  modes:\n" << body.str();
  return y.str();
}

Config load_deck_job(const std::string& path, const std::string& verb, const std::vector<std::string>& overrides) {
  return Config::from_string(deck_job_yaml(path, verb, overrides), path, overrides);
}

} // namespace flexuq::io
