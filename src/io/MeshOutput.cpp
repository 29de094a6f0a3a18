// SPDX-License-Identifier: MIT
#include "flexuq/io/MeshOutput.hpp"

#include "flexuq/core/Error.hpp"

#include <fstream>
#include <map>

namespace flexuq::io {

namespace {
int xdmf_type_id(ElementType t) {
  switch (t) {
  case ElementType::tet4: return 6;
  case ElementType::tet10: return 38;
  case ElementType::hex8: return 9;
  case ElementType::hex20: return 48;
  case ElementType::beam2: return 2; // Polyline, followed by the node count
  case ElementType::penta6: return 8;   // Wedge
  case ElementType::penta15: return 40; // Wedge_15
  case ElementType::shell4: return 5;   // Quadrilateral
  case ElementType::shell3: return 4;   // Triangle
  case ElementType::quad4: return 5;    // Quadrilateral
  case ElementType::quad8: return 37;   // Quadrilateral_8
  case ElementType::tri3: return 4;     // Triangle
  case ElementType::tri6: return 36;    // Triangle_6
  case ElementType::bar2: return 2;     // Polyline, followed by the node count
  }
  return 0;
}
} // namespace

void write_mesh(H5File& f, const Mesh& mesh) {
  int rank = 0, size = 1;
  MPI_Comm_rank(f.comm(), &rank);
  MPI_Comm_size(f.comm(), &size);
  const std::uint64_t n = mesh.num_nodes();
  // Geometry: each rank writes a contiguous block of rows.
  const std::uint64_t lo = n * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(size);
  const std::uint64_t hi = n * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(size);
  std::vector<double> xyz;
  xyz.reserve(3 * (hi - lo));
  for (std::uint64_t i = lo; i < hi; ++i)
    for (int k = 0; k < 3; ++k) xyz.push_back(mesh.coords[i][k]);
  f.write_rows("/mesh/geometry", {n, 3}, lo, hi - lo, xyz.data());
  std::vector<std::int64_t> ids(mesh.node_ids.begin(), mesh.node_ids.end());
  f.write_replicated("/mesh/node_ids", {n}, ids.data());

  std::map<ElementType, std::vector<std::int64_t>> topo, eids;
  std::vector<std::int64_t> mixed;
  for (std::size_t e = 0; e < mesh.num_elements(); ++e) {
    const ElementType t = mesh.elem_type[e];
    mixed.push_back(xdmf_type_id(t));
    if (t == ElementType::beam2 || t == ElementType::bar2) mixed.push_back(2);
    for (int k = 0; k < mesh.element_size(e); ++k) {
      topo[t].push_back(mesh.element(e)[k]);
      mixed.push_back(mesh.element(e)[k]);
    }
    eids[t].push_back(mesh.elem_ids[e]);
  }
  for (const auto& [t, conn] : topo) {
    const std::uint64_t npe = static_cast<std::uint64_t>(nodes_per_element(t));
    f.write_replicated(std::string("/mesh/topology/") + element_name(t), {conn.size() / npe, npe}, conn.data());
    f.write_replicated(std::string("/mesh/element_ids/") + element_name(t), {eids[t].size()}, eids[t].data());
  }
  // A mesh without elements (model.matrices) is shown as its nodes: one XDMF polyvertex (type 1,
  // one node) per node.
  if (mesh.num_elements() == 0)
    for (std::uint64_t v = 0; v < n; ++v) mixed.insert(mixed.end(), {1, 1, static_cast<std::int64_t>(v)});
  f.write_replicated("/mesh/topology_mixed", {mixed.size()}, mixed.data());
  f.write_attribute("/mesh", "num_elements", static_cast<std::int64_t>(mesh.num_elements()));
  f.write_attribute("/mesh", "source", mesh.source);
  for (const auto& [name, nodes] : mesh.node_sets) {
    std::vector<std::int64_t> v(nodes.begin(), nodes.end());
    f.write_replicated("/mesh/node_sets/" + name, {v.size()}, v.data());
  }
}

void write_xdmf(const std::string& xdmf_path, const std::string& h5, const Mesh& mesh, const XdmfNodeField& fld) {
  std::ofstream x(xdmf_path);
  if (!x) throw Error("cannot write XDMF file '" + xdmf_path + "'");
  const std::size_t n = mesh.num_nodes();
  std::size_t mixed_len = 0;
  for (std::size_t e = 0; e < mesh.num_elements(); ++e)
    mixed_len += 1 + static_cast<std::size_t>(mesh.element_size(e)) + (mesh.elem_type[e] == ElementType::beam2 || mesh.elem_type[e] == ElementType::bar2 ? 1 : 0);
  const std::size_t n_cells = mesh.num_elements() > 0 ? mesh.num_elements() : n; // polyvertices (write_mesh)
  if (mesh.num_elements() == 0) mixed_len = 3 * n;
  x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n <Domain>\n";
  x << "  <Grid Name=\"" << fld.name << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (std::size_t j = 0; j < fld.count; ++j) {
    const double t = j < fld.times.size() ? fld.times[j] : static_cast<double>(j + 1);
    x << "   <Grid Name=\"" << fld.name << "_" << j + 1 << "\" GridType=\"Uniform\">\n";
    x << "    <Time Value=\"" << t << "\"/>\n";
    x << "    <Topology TopologyType=\"Mixed\" NumberOfElements=\"" << n_cells << "\">\n";
    x << "     <DataItem Dimensions=\"" << mixed_len << "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">" << h5
      << ":/mesh/topology_mixed</DataItem>\n    </Topology>\n";
    x << "    <Geometry GeometryType=\"XYZ\">\n     <DataItem Dimensions=\"" << n
      << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << h5 << ":/mesh/geometry</DataItem>\n    </Geometry>\n";
    if (fld.components == 2) { // a 2-D field (ux, uy): shown as the vector (ux, uy, 0)
      x << "    <Attribute Name=\"" << fld.name << "\" AttributeType=\"Vector\" Center=\"Node\">\n";
      x << "     <DataItem ItemType=\"Function\" Function=\"JOIN($0, $1, $0 - $0)\" Dimensions=\"" << n << " 3\">\n";
      for (int c = 0; c < 2; ++c) {
        x << "      <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << n << " 1 1\" Type=\"HyperSlab\">\n";
        x << "       <DataItem Dimensions=\"3 3\" Format=\"XML\">0 " << c << " " << j << " 1 1 1 " << n << " 1 1</DataItem>\n";
        x << "       <DataItem Dimensions=\"" << n << " 2 " << fld.count << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
          << h5 << ":" << fld.dataset << "</DataItem>\n      </DataItem>\n";
      }
      x << "     </DataItem>\n    </Attribute>\n   </Grid>\n";
      continue;
    }
    const std::size_t blocks = fld.components >= 6 ? 2 : 1;
    for (std::size_t b = 0; b < blocks; ++b) {
      x << "    <Attribute Name=\"" << (b == 0 ? fld.name : fld.name + "_rotation")
        << "\" AttributeType=\"Vector\" Center=\"Node\">\n";
      x << "     <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << n << " 3 1\" Type=\"HyperSlab\">\n";
      x << "      <DataItem Dimensions=\"3 3\" Format=\"XML\">0 " << 3 * b << " " << j << " 1 1 1 " << n << " 3 1</DataItem>\n";
      x << "      <DataItem Dimensions=\"" << n << " " << fld.components << " " << fld.count
        << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << h5 << ":" << fld.dataset << "</DataItem>\n";
      x << "     </DataItem>\n    </Attribute>\n";
    }
    x << "   </Grid>\n";
  }
  x << "  </Grid>\n </Domain>\n</Xdmf>\n";
}

std::string xdmf_path_for(const std::string& h5) {
  std::string x = h5;
  const auto dot = x.find_last_of('.'), slash = x.find_last_of('/');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) x = x.substr(0, dot);
  return x + ".xdmf";
}

void write_xdmf_beside(const std::string& h5_path, const Mesh& mesh, const XdmfNodeField& field) {
  const auto slash = h5_path.find_last_of('/');
  write_xdmf(xdmf_path_for(h5_path), slash == std::string::npos ? h5_path : h5_path.substr(slash + 1), mesh, field);
}

void write_phase_times(H5File& f, const std::vector<std::pair<std::string, double>>& phases) {
  if (phases.empty()) return;
  std::vector<std::string> names;
  std::vector<double> t;
  for (const auto& [k, v] : phases) {
    names.push_back(k);
    t.push_back(v);
  }
  f.write_strings("/run/phase_names", names);
  f.write_replicated("/run/phase_seconds", {t.size()}, t.data());
}

} // namespace flexuq::io
