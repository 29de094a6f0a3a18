// SPDX-License-Identifier: MIT
#include "flexuq/mbs/Animation.hpp"

#include "flexuq/cms/BodyFile.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/la/Mechanics.hpp"
#include "flexuq/mbs/EulerParameters.hpp"

#include <fstream>
#include <sstream>

namespace flexuq::mbs {

namespace {

struct BodyMesh {
  std::string name;
  std::size_t nodes = 0, cells = 0, mixed = 0;
  bool von_mises = false; ///< the body has stress modes: a nodal von Mises field per frame
};

} // namespace

int write_animation(io::H5File& f, const std::string& h5_name, const std::string& xdmf_path, const SimulationJob& job,
                    const SimulationResult& r) {
  const System& sys = job.system;
  const std::size_t nt = r.time.size();
  std::vector<BodyMesh> meshes;
  for (std::size_t b = 0; b < sys.bodies().size(); ++b) {
    const auto& body = sys.bodies()[b];
    if (!body.flex || sys.gs(static_cast<int>(b))) continue; // a gs body has no linear node map (mbs/GsBody.hpp)
    const auto file_it = job.flexible_files.find(body.name);
    if (file_it == job.flexible_files.end()) continue;
    const cms::BodyFile src(MPI_COMM_SELF, file_it->second);
    if (!src.has_mesh_topology() || !src.has_basis())
      continue; // a body given by matrices has no mesh to show
    const auto geo = src.read_mesh_geometry();
    const auto topology = src.read_mesh_topology();
    const auto& mixed = topology.mixed;
    const auto basis = src.read_basis();
    // ξ = V η with the body's own V (mean axes, a held frame, or 1 for a GCMS body), not the file's.
    const Mat& V = body.flex->V;
    const int ne = sys.n_elastic(static_cast<int>(b));
    const std::size_t nn = geo.size() / 3, n = static_cast<std::size_t>(V.rows());
    FLEXUQ_REQUIRE(n > 0 && basis.size() % (nn * n) == 0, file_it->second << ": /reduced/basis does not match /mesh and V");
    const std::size_t dpn = basis.size() / (nn * n);
    FLEXUQ_REQUIRE(dpn >= 3, file_it->second << ": /reduced/basis has " << dpn << " components per node");
    // Ψ (3 nn × n_e): node translations of the elastic coordinates, Ψ = Φ_t V.
    Mat psi(3 * nn, ne);
    for (std::size_t i = 0; i < nn; ++i)
      for (std::size_t c = 0; c < 3; ++c) {
        const Eigen::Map<const Eigen::RowVectorXd> row(basis.data() + (i * dpn + c) * n, n);
        psi.row(static_cast<Eigen::Index>(3 * i + c)) = row * V;
      }
    // Recovered stresses (a body file with /reduced/stress_modes): SV (6 nn × n_e) = f · S V.
    const bool stresses = body.flex->stress_modes && body.flex->stress_modes->size() == nn * 6 * n;
    Mat sv;
    if (stresses) {
      sv.resize(static_cast<Eigen::Index>(6 * nn), ne);
      const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> S(
          body.flex->stress_modes->data(), static_cast<Eigen::Index>(6 * nn), static_cast<Eigen::Index>(n));
      sv.noalias() = body.flex->stress_scale * (S * V);
    }
    std::vector<double> vm(stresses ? nt * nn : 0);
    std::vector<double> pos(nt * nn * 3), disp(nt * nn * 3);
    for (std::size_t k = 0; k < nt; ++k) {
      const double* qb = r.coordinates[b].data() + 7 * k;
      const Vec3 origin(qb[0], qb[1], qb[2]);
      const Mat3 a = rotation(Vec4(qb[3], qb[4], qb[5], qb[6]));
      const Eigen::Map<const Vec> eta(r.elastic[b].data() + static_cast<std::size_t>(ne) * k, ne);
      const Vec u = psi * eta;
      if (stresses) {
        const Vec sig = body.flex->gcms ? Vec(sv * gcms_corotated(eta, *body.flex->gcms)) : Vec(sv * eta); // GCMS: Âᵀ q_flx
        for (std::size_t i = 0; i < nn; ++i) vm[k * nn + i] = la::von_mises(sig.data() + 6 * i);
      }
      for (std::size_t i = 0; i < nn; ++i) {
        const Vec3 x0(geo[3 * i], geo[3 * i + 1], geo[3 * i + 2]);
        const Vec3 ui = u.segment<3>(static_cast<Eigen::Index>(3 * i));
        const Vec3 p = origin + a * (x0 + ui), d = a * ui;
        for (int c = 0; c < 3; ++c) {
          pos[(k * nn + i) * 3 + c] = p(c);
          disp[(k * nn + i) * 3 + c] = d(c);
        }
      }
    }
    const std::string g = "/animation/" + body.name;
    f.ensure_group("/animation");
    f.ensure_group(g);
    f.write_replicated(g + "/geometry", {nt, nn, 3}, pos.data());
    f.write_replicated(g + "/displacement", {nt, nn, 3}, disp.data());
    if (stresses) f.write_replicated(g + "/von_mises", {nt, nn}, vm.data());
    f.write_replicated(g + "/topology_mixed", {mixed.size()}, mixed.data());
    const auto cells = static_cast<std::size_t>(topology.num_elements);
    f.write_attribute(g, "num_elements", static_cast<std::int64_t>(cells));
    f.write_attribute(g, "body_file", file_it->second);
    meshes.push_back({body.name, nn, cells, mixed.size(), stresses});
  }
  if (meshes.empty()) return 0;
  std::ofstream x(xdmf_path);
  if (!x) throw Error("cannot write XDMF file '" + xdmf_path + "'");
  x.precision(17);
  x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n <Domain>\n";
  x << "  <Grid Name=\"simulation\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (std::size_t k = 0; k < nt; ++k) {
    x << "   <Grid Name=\"t" << k << "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
    x << "    <Time Value=\"" << r.time[k] << "\"/>\n";
    for (const auto& m : meshes) {
      const std::string g = h5_name + ":/animation/" + m.name;
      auto slab = [&](const std::string& dset) {
        std::ostringstream s;
        s << "      <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << m.nodes << " 3\" Type=\"HyperSlab\">\n"
          << "       <DataItem Dimensions=\"3 3\" Format=\"XML\">" << k << " 0 0 1 1 1 1 " << m.nodes << " 3</DataItem>\n"
          << "       <DataItem Dimensions=\"" << nt << " " << m.nodes << " 3\" NumberType=\"Float\" Precision=\"8\" "
          << "Format=\"HDF\">" << g << "/" << dset << "</DataItem>\n      </DataItem>\n";
        return s.str();
      };
      x << "    <Grid Name=\"" << m.name << "\" GridType=\"Uniform\">\n";
      x << "     <Topology TopologyType=\"Mixed\" NumberOfElements=\"" << m.cells << "\">\n";
      x << "      <DataItem Dimensions=\"" << m.mixed << "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">" << g
        << "/topology_mixed</DataItem>\n     </Topology>\n";
      x << "     <Geometry GeometryType=\"XYZ\">\n" << slab("geometry") << "     </Geometry>\n";
      x << "     <Attribute Name=\"displacement\" AttributeType=\"Vector\" Center=\"Node\">\n"
        << slab("displacement") << "     </Attribute>\n";
      if (m.von_mises)
        x << "     <Attribute Name=\"von_mises\" AttributeType=\"Scalar\" Center=\"Node\">\n"
          << "      <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << m.nodes << "\" Type=\"HyperSlab\">\n"
          << "       <DataItem Dimensions=\"3 2\" Format=\"XML\">" << k << " 0 1 1 1 " << m.nodes << "</DataItem>\n"
          << "       <DataItem Dimensions=\"" << nt << " " << m.nodes << "\" NumberType=\"Float\" Precision=\"8\" "
          << "Format=\"HDF\">" << g << "/von_mises</DataItem>\n      </DataItem>\n     </Attribute>\n";
      x << "    </Grid>\n";
    }
    x << "   </Grid>\n";
  }
  x << "  </Grid>\n </Domain>\n</Xdmf>\n";
  if (!x) throw Error("cannot write XDMF file '" + xdmf_path + "'");
  return static_cast<int>(meshes.size());
}

} // namespace flexuq::mbs
