// SPDX-License-Identifier: MIT
// L-shaped solid bar for the CalculiX cross-check (tests/oracle/ccx_crosscheck.py).
// The L profile in the x-y plane is three a x a squares; it is extruded by L along z.
// Physical groups: volume SOLID (all solid elements), surface CLAMP (the z = 0 end face).
//   hex = 1: transfinite + recombined (hexahedra), nxy elements per square edge, nz layers.
//   hex = 0: unstructured tetrahedra of size h.
// Example: gmsh -3 -order 2 -setnumber hex 1 -string 'Mesh.SecondOrderIncomplete=1;' \
//               -setnumber Mesh.SaveGroupsOfNodes 1 -format inp -o lbar.inp lbar.geo
SetFactory("Built-in");
a = 0.02;
L = 0.16;
If (!Exists(hex)) hex = 1; EndIf
If (!Exists(nxy)) nxy = 3; EndIf
If (!Exists(nz)) nz = 12; EndIf
If (!Exists(h)) h = 0.01; EndIf

Point(1) = {0, 0, 0, h};
Point(2) = {a, 0, 0, h};
Point(3) = {2 * a, 0, 0, h};
Point(4) = {0, a, 0, h};
Point(5) = {a, a, 0, h};
Point(6) = {2 * a, a, 0, h};
Point(7) = {0, 2 * a, 0, h};
Point(8) = {a, 2 * a, 0, h};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {4, 5};
Line(4) = {5, 6};
Line(5) = {7, 8};
Line(6) = {1, 4};
Line(7) = {4, 7};
Line(8) = {2, 5};
Line(9) = {5, 8};
Line(10) = {3, 6};
Curve Loop(1) = {1, 8, -3, -6};
Plane Surface(1) = {1};
Curve Loop(2) = {2, 10, -4, -8};
Plane Surface(2) = {2};
Curve Loop(3) = {3, 9, -5, -7};
Plane Surface(3) = {3};

If (hex)
  Transfinite Curve{1:10} = nxy + 1;
  Transfinite Surface{1:3};
  Recombine Surface{1:3};
  out[] = Extrude {0, 0, L} { Surface{1:3}; Layers{nz}; Recombine; };
Else
  out[] = Extrude {0, 0, L} { Surface{1:3}; };
EndIf

// Extrude returns {top, volume, sides...} per surface: 6 entries each for a quadrilateral.
Physical Volume("SOLID") = {out[1], out[7], out[13]};
Physical Surface("CLAMP") = {1:3};
