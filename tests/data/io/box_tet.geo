// SPDX-License-Identifier: MIT
// A small box meshed with tetrahedra, for the reader tests (gmsh -3 [-order 2] box_tet.geo).
DefineConstant[ volume_only = 0 ];
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 0.6, 0.4};
Physical Volume("body") = {1};
If (volume_only == 0)
  Physical Surface("x0") = {1};
  Physical Surface(12) = {2};
EndIf
Mesh.MeshSizeMax = 0.35;
