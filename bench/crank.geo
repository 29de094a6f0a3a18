// SPDX-License-Identifier: MIT
// Crank-like solid for bench/modes_vs_ccx.sh: three main journals, two throws (crank pins offset
// +-45 mm from the journal axis), four webs rounded at the pin with half-disc counterweights. Units: metres. Mesh size h (set with -setnumber h ...).
// Physical groups: volume SOLID; surface CLAMP = the end face of the first journal (z = 0).
SetFactory("OpenCASCADE");
If (!Exists(h)) h = 0.01; EndIf

rj = 0.025;  lj = 0.040;   // main journal radius, length
rp = 0.021;  lp = 0.036;   // crank pin radius, length
tw = 0.018;  e = 0.045;    // web thickness, pin offset (throw)
rw = 0.034;  rc = 0.050;   // web end radius at the pin, counterweight radius

z = 0;
v = 0;
// journal 1
v++; Cylinder(v) = {0, 0, z, 0, 0, lj, rj}; z += lj;
For t In {0:1}
  s = (t == 0) ? 1 : -1;
  For w In {0:1}
    // web: slab joining the journal axis to the pin, rounded at the pin, with a counterweight lobe
    y0 = (s > 0) ? 0 : -e;
    v++; Box(v) = {-rw, y0, z, 2 * rw, e, tw};
    v++; Cylinder(v) = {0, s * e, z, 0, 0, tw, rw};
    v++; Cylinder(v) = {0, 0, z, 0, 0, tw, rc, Pi};
    If (s > 0) Rotate {{0, 0, 1}, {0, 0, 0}, Pi} { Volume{v}; } EndIf
    z += tw;
    If (w == 0)
      v++; Cylinder(v) = {0, s * e, z, 0, 0, lp, rp}; z += lp;
    EndIf
  EndFor
  // next main journal
  v++; Cylinder(v) = {0, 0, z, 0, 0, lj, rj}; z += lj;
EndFor
BooleanUnion{ Volume{1}; Delete; }{ Volume{2:v}; Delete; }
Mesh.CharacteristicLengthMax = h;
Mesh.CharacteristicLengthMin = h / 4;
Mesh.CharacteristicLengthFromCurvature = 0;
Physical Volume("SOLID") = Volume{:};
clamp[] = Surface In BoundingBox{-rj - 1e-6, -rj - 1e-6, -1e-6, rj + 1e-6, rj + 1e-6, 1e-6};
Physical Surface("CLAMP") = {clamp[]};
