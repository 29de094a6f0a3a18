// SPDX-License-Identifier: MIT
// Two hexahedra of a sheared, skewed box (so no edge is axis-aligned in all directions).
// Used by the reader tests: gmsh -3 -order 2 box_hex.geo -format msh41|msh22|inp.
// -setnumber volume_only 1 keeps only the volume group (gmsh's .inp export then has no surface elements).
DefineConstant[ volume_only = 0 ];
Point(1) = {0, 0, 0};
Point(2) = {2, 0.2, 0};
Point(3) = {2.3, 1, 0};
Point(4) = {0.1, 1.1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 3;
Transfinite Curve{2, 4} = 2;
Transfinite Surface{1};
Recombine Surface{1};
out[] = Extrude {0.2, 0.1, 1} { Surface{1}; Layers{1}; Recombine; };
Physical Volume("solid") = {out[1]};
If (volume_only == 0)
  Physical Surface("Fixed") = {1};
  Physical Surface(7) = {out[0]};
EndIf
Mesh.SecondOrderIncomplete = 1; // 20-node, not 27-node, hexahedra
