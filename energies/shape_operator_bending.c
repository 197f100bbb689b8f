/* shape_operator_bending.c — plate bending per triangle from its discrete shape operator,
 * which couples the triangle's three hinges (papers/calibration.md §2b):
 *   S_T = Σ_i θ_i ‖e_i‖ n_i n_iᵀ / (2 A_T),   rest S̄_T the same with the rest angles θ̄_i,
 *   ψ_T = ½ D A_T [(1 − ν) tr((S − S̄)²) + ν (tr(S − S̄))²] = ½ δᵀ K δ,   δ_i = θ_i − θ̄_i,
 *   K_ij = D A_T w_i w_j [(1 − ν)(ê_i·ê_j)² + ν],   w_i = ‖e_i‖/(2 A_T),
 * θ_i the dihedral angle at edge i (opposite v_i) of weft_hinge_angle, n_i ⊥ e_i in the
 * rest triangle (n_i·n_j = ±ê_i·ê_j); ‖e_i‖, A_T, n_i rest values, so K is constant.
 * D = bending_stiffness (N·m), ν = poisson_ratio. A cylinder w = ½κx² (S = diag(κ, 0))
 * stores ½Dκ² per area whatever ν: D is the flexural rigidity of cylindrical bending, as
 * for dihedral_bending; a free narrow strip is a beam of D(1 − ν²), the plate's value.
 * A boundary edge (no wing) has no angle: δ_b is eliminated by minimising ψ_T over it,
 * ∂ψ/∂δ_b = 0, the discrete free-side condition M_nn = D(κ_nn + ν κ_tt) = 0 (a Schur
 * complement of K, done in init; a corner triangle eliminates two, so K is that of the
 * angles it has left).
 * Gradient and Hessian through the angles (chain rule, c = K δ):
 *   ∇ψ = Σ_i c_i ∇θ_i,   ∇²ψ = Σ_ij K_ij ∇θ_i ∇θ_jᵀ + Σ_i c_i ∇²θ_i,
 * ∇²θ_i by weft_hinge_angle_hessian (dihedral_bending.c). K is PSD, so at δ = 0 the
 * Hessian is PSD as it stands; otherwise CLAMP (and ANALYTIC, no eigensystem here) is
 * weft_psd_clamp on the 18×18 matrix. A degenerate hinge has θ = 0 and ∇θ = 0.
 * Element: v = (v0, v1, v2, w0, w1, w2), w_i = v_i for a boundary edge (slot unused);
 * rest = (K00, K11, K22, K01, K02, K12 (J/rad²), θ̄0, θ̄1, θ̄2 (rad), boundary mask);
 * k = D, k2 = ν. No constraint or projective form: xpbd and projective_dynamics refuse
 * it, PBD projects its own bending constraints. Papers: Grinspun, Gingold, Reisman, Zorin
 * 2006 (the edge-based shape operator); plate energy as in Timoshenko & Woinowsky-Krieger.
 */
#include "fem.h"

#include <math.h>
#include <string.h>

/* K's entry (i, j) from rest[0..5]. */
static double kij(const weft_element *e, int i, int j) {
    static const int idx[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};
    return e->rest[idx[i][j]];
}

/* Hinge i's four slots in the element, in weft_hinge_angle's order: the edge opposite
 * v_i, (v_{i+1}, v_{i+2}), then v_i (wing A, the triangle itself) and w_i (wing B). */
static void hinge_slots(int i, int s[4]) {
    s[0] = (i + 1) % 3, s[1] = (i + 2) % 3, s[2] = i, s[3] = 3 + i;
}

/* Gathers hinge i's positions (12 values) from xe. */
static void hinge_x(const double *xe, int i, double xh[12]) {
    int s[4];
    hinge_slots(i, s);
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) xh[3 * a + k] = xe[3 * s[a] + k];
}

/* Rest data (the file comment): K from the rest triangle, D and ν, then the boundary
 * angles eliminated one by one (successive Schur complements equal the block one). */
static void sob_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    double ed[3][3], len[3], nrm[3];
    for (int i = 0; i < 3; i++) {
        int a = (i + 1) % 3, b = (i + 2) % 3;
        for (int k = 0; k < 3; k++) ed[i][k] = xe[3 * b + k] - xe[3 * a + k];
        len[i] = sqrt(ed[i][0] * ed[i][0] + ed[i][1] * ed[i][1] + ed[i][2] * ed[i][2]);
    }
    nrm[0] = ed[2][1] * ed[1][2] - ed[2][2] * ed[1][1];
    nrm[1] = ed[2][2] * ed[1][0] - ed[2][0] * ed[1][2];
    nrm[2] = ed[2][0] * ed[1][1] - ed[2][1] * ed[1][0];
    double A = 0.5 * sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
    double D = p->stiffness, nu = p->poisson, K[3][3] = {{0}};
    e->k = D, e->k2 = nu;
    memset(e->rest, 0, sizeof e->rest);
    int mask = 0;
    for (int i = 0; i < 3; i++) {
        if (e->v[3 + i] == e->v[i]) mask |= 1 << i;
        double xh[12];
        hinge_x(xe, i, xh);
        e->rest[6 + i] = mask >> i & 1 ? 0.0 : weft_hinge_angle(xh, xh + 3, xh + 6, xh + 9, NULL);
    }
    e->rest[9] = mask;
    if (!(A > 0.0) || !(len[0] > 0.0) || !(len[1] > 0.0) || !(len[2] > 0.0)) return;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double c = (ed[i][0] * ed[j][0] + ed[i][1] * ed[j][1] + ed[i][2] * ed[j][2]) /
                       (len[i] * len[j]);
            K[i][j] = D * A * (len[i] / (2 * A)) * (len[j] / (2 * A)) * ((1 - nu) * c * c + nu);
        }
    for (int b = 0; b < 3; b++) {
        if (!(mask >> b & 1)) continue;
        double kb = K[b][b];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                if (i != b && j != b && kb > 0.0) K[i][j] -= K[i][b] * K[b][j] / kb;
        for (int i = 0; i < 3; i++) K[i][b] = K[b][i] = 0.0;
    }
    weft_symmetrise(&K[0][0], 3);
    e->rest[0] = K[0][0], e->rest[1] = K[1][1], e->rest[2] = K[2][2];
    e->rest[3] = K[0][1], e->rest[4] = K[0][2], e->rest[5] = K[1][2];
}

/* The angle changes δ_i (0 at a boundary edge) and, if gt != NULL, ∇θ_i (12 each, in
 * hinge order; zero at a boundary edge or a degenerate hinge). Returns ψ = ½ δᵀKδ and
 * c = K δ. */
static double sob_angles(const weft_element *e, const double *xe, double d[3], double c[3],
                         double gt[3][12]) {
    int mask = (int)e->rest[9];
    for (int i = 0; i < 3; i++) {
        d[i] = 0.0;
        if (gt) memset(gt[i], 0, sizeof gt[i]);
        if (mask >> i & 1) continue;
        double xh[12];
        hinge_x(xe, i, xh);
        double th = weft_hinge_angle(xh, xh + 3, xh + 6, xh + 9, gt ? gt[i] : NULL);
        d[i] = weft_wrap_angle(th - e->rest[6 + i]);
    }
    double psi = 0.0;
    for (int i = 0; i < 3; i++) {
        c[i] = 0.0;
        for (int j = 0; j < 3; j++) c[i] += kij(e, i, j) * d[j];
        psi += 0.5 * d[i] * c[i];
    }
    return psi;
}

static double sob_energy(const weft_element *e, const double *xe) {
    double d[3], c[3];
    return sob_angles(e, xe, d, c, NULL);
}

/* g = Σ_i c_i ∇θ_i over the 6 slots (18 values). */
static void sob_force(const double c[3], double gt[3][12], double *g) {
    memset(g, 0, 18 * sizeof *g);
    for (int i = 0; i < 3; i++) {
        int s[4];
        hinge_slots(i, s);
        for (int a = 0; a < 4; a++)
            for (int k = 0; k < 3; k++) g[3 * s[a] + k] += c[i] * gt[i][3 * a + k];
    }
}

static double sob_gradient(const weft_element *e, const double *xe, double *g) {
    double d[3], c[3], gt[3][12];
    double psi = sob_angles(e, xe, d, c, gt);
    sob_force(c, gt, g);
    return psi;
}

/* Hinge i's local index (0..3) of slot a, or −1. */
static int hinge_local(int i, int a) {
    int s[4];
    hinge_slots(i, s);
    for (int q = 0; q < 4; q++)
        if (s[q] == a) return q;
    return -1;
}

/* True when hinge i has a non-zero ∇θ (not a boundary edge, not degenerate). */
static bool hinge_live(double gt[3][12], int i) {
    return gt[i][6] != 0.0 || gt[i][7] != 0.0 || gt[i][8] != 0.0;
}

/* The Gauss–Newton part in slot coordinates: G_i = ∇θ_i over the 18 coordinates (zero off
 * hinge i's slots) and M_i = Σ_j K_ij G_j, so that Σ_ij K_ij G_i G_jᵀ = Σ_i G_i M_iᵀ. */
static void gauss_newton_parts(const weft_element *e, double gt[3][12], double G[3][18],
                               double M[3][18]) {
    memset(G, 0, 3 * sizeof G[0]);
    for (int i = 0; i < 3; i++) {
        int s[4];
        hinge_slots(i, s);
        for (int a = 0; a < 4; a++)
            for (int k = 0; k < 3; k++) G[i][3 * s[a] + k] = gt[i][3 * a + k];
    }
    for (int i = 0; i < 3; i++)
        for (int p = 0; p < 18; p++)
            M[i][p] = kij(e, i, 0) * G[0][p] + kij(e, i, 1) * G[1][p] + kij(e, i, 2) * G[2][p];
}

/* Entry (p, q) of Σ_i G_i M_iᵀ; the full and the per-vertex Hessians both form their
 * entries here, then add c_i ∇²θ_i for i = 0, 1, 2 in turn, so they agree bit for bit. */
static double gauss_newton_entry(double G[3][18], double M[3][18], int p, int q) {
    return G[0][p] * M[0][q] + G[1][p] * M[1][q] + G[2][p] * M[2][q];
}

static double sob_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                          double *g, double *H) {
    double d[3], c[3], gt[3][12], G[3][18], M[3][18];
    double psi = sob_angles(e, xe, d, c, gt);
    if (g) sob_force(c, gt, g);
    gauss_newton_parts(e, gt, G, M);
    for (int p = 0; p < 18; p++)
        for (int q = 0; q < 18; q++) H[18 * p + q] = gauss_newton_entry(G, M, p, q);
    bool curved = false;
    for (int i = 0; i < 3; i++) { /* + c_i ∇²θ_i, scattered to hinge i's slots */
        if (!(c[i] != 0.0 && hinge_live(gt, i))) continue;
        double xh[12], Ht[144];
        int s[4];
        hinge_x(xe, i, xh);
        hinge_slots(i, s);
        weft_hinge_angle_hessian(xh, Ht);
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                for (int r = 0; r < 3; r++)
                    for (int q = 0; q < 3; q++)
                        H[18 * (3 * s[a] + r) + 3 * s[b] + q] +=
                            c[i] * Ht[12 * (3 * a + r) + 3 * b + q];
        curved = true;
    }
    weft_symmetrise(H, 18);
    /* δ = 0 (c = 0): H = Jᵀ K J, PSD as it stands. */
    if (mode != WEFT_HESSIAN_EXACT && curved) weft_psd_clamp(H, 18);
    return psi;
}

/* Vertex (slot) v's gradient and diagonal block for vertex block descent. The exact mode:
 * sob_hessian's operations on that block alone (the ∇²θ blocks from
 * weft_hinge_angle_hessian_vertex, equal to weft_hinge_angle_hessian's bit for bit), so the
 * same numbers; the projected modes clamp the whole matrix, so they take its block.
 * Returns Ψ. */
static double sob_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                 int v, double *g, double *H) {
    if (mode != WEFT_HESSIAN_EXACT) {
        double gf[18], Hf[324];
        double psi = sob_hessian(e, xe, mode, gf, Hf);
        for (int r = 0; r < 3; r++) {
            g[r] = gf[3 * v + r];
            for (int q = 0; q < 3; q++) H[3 * r + q] = Hf[18 * (3 * v + r) + 3 * v + q];
        }
        return psi;
    }
    double d[3], c[3], gt[3][12], gf[18], G[3][18], M[3][18];
    double psi = sob_angles(e, xe, d, c, gt);
    sob_force(c, gt, gf);
    gauss_newton_parts(e, gt, G, M);
    for (int r = 0; r < 3; r++)
        for (int q = 0; q < 3; q++) H[3 * r + q] = gauss_newton_entry(G, M, 3 * v + r, 3 * v + q);
    for (int i = 0; i < 3; i++) {
        int l = hinge_local(i, v);
        if (l < 0 || !(c[i] != 0.0 && hinge_live(gt, i))) continue;
        double xh[12], Ht[9];
        hinge_x(xe, i, xh);
        weft_hinge_angle_hessian_vertex(xh, l, Ht);
        for (int k = 0; k < 9; k++) H[k] += c[i] * Ht[k];
    }
    for (int r = 0; r < 3; r++) g[r] = gf[3 * v + r];
    weft_symmetrise(H, 3);
    return psi;
}

const weft_energy_type weft_shape_operator_bending = {
    .name = "shape_operator_bending",
    .paper = "Grinspun et al. 2006 (edge-based shape operator); plate energy, papers/calibration.md",
    .summary = "per-triangle plate bending 1/2 D A [(1-nu) tr(dS^2) + nu tr(dS)^2] of the "
               "shape operator of its three hinges; free edges eliminated: D on narrow strips too",
    .kind = WEFT_ELEM_TRI_HINGES,
    .nv = 6,
    .init = sob_init,
    .energy = sob_energy,
    .gradient = sob_gradient,
    .hessian = sob_hessian,
    .analytic_psd = false,
    .vertex_hessian = sob_vertex_hessian,
};
