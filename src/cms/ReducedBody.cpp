// SPDX-License-Identifier: MIT
#include "flexuq/cms/ReducedBody.hpp"

#include "flexuq/cms/BodyFile.hpp"
#include "flexuq/cms/FloatingFrame.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/Hdf5File.hpp"

namespace flexuq::cms {

Invariants ReducedBody::frame_invariants() const {
  if (!has_floating_frame()) throw Error("reduced body: no floating-frame coordinates (not a free body, or MacNeal)");
  return transform_invariants(invariants, checkout.frame_V);
}

void ReducedBody::write(io::H5File& f) const { BodyFile(f).write_reduced(*this); }

ReducedBody ReducedBody::read(const io::H5File& f) { return BodyFile(f).read_reduced(); }

ReducedBody ReducedBody::read(MPI_Comm comm, const std::string& path) {
  const io::H5File f(comm, path, io::H5File::Mode::read);
  return read(f);
}

} // namespace flexuq::cms
