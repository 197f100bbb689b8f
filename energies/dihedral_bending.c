/* dihedral_bending.c — bending on interior edges (hinges), the implicit twin of the
 * PBD bending constraint of Müller 2006 §4.1:
 *   C = θ − θ0 (wrapped into (−π, π]),   Ψ = ½ k C²,   ∂Ψ/∂x = k C ∂θ/∂x,
 *   ∂²Ψ/∂x² = k (∇θ ∇θᵀ + C ∇²θ),
 * with θ the signed dihedral angle of weft_hinge_angle (robust at 0 and ±π). The
 * hinge stiffness follows discrete shells (Grinspun et al. 2003): from the bending
 * stiffness D (N·m), k = D · 3|ē|² / Ā (J/rad²), Ā the rest area of the two triangles.
 *
 * ∇²θ without dividing by sin θ. With e = p1 − p0, a = p2 − p0, b = p3 − p1 and the
 * normals nA = e × a, nB = −e × b of weft_hinge_angle, the identity
 * (e × a) × (e × b) = det[e, a, b] e gives nA × nB = −det[e, a, b] e, and Binet–Cauchy
 * gives nA·nB = −[(e·e)(a·b) − (e·b)(e·a)]. Dividing weft_hinge_angle's two atan2
 * arguments by the common factor |e| > 0:
 *   θ = atan2(s, c),   s = −|e| det[e, a, b] = |nA||nB| sin θ,
 *                      c = −[(e·e)(a·b) − (e·b)(e·a)] = |nA||nB| cos θ.
 * With r² = s² + c² = |nA|²|nB|² (> 0 for a non-degenerate hinge), the imaginary part
 * of ∇ log(c + i s) and of its Jacobian give
 *   ∇θ = G = (c ∇s − s ∇c)/r²,   Q = (s ∇s + c ∇c)/r² (= ∇ log r),
 *   ∇²θ = (c ∇²s − s ∇²c)/r² − (Q Gᵀ + G Qᵀ),
 * valid at every θ, 0 and ±π included. s and c are polynomials in u = (e, a, b) (s also
 * has the factor |e|), differentiated by hand in angle_hessian below; u is linear in the
 * positions, u = J x, so ∇²ₓθ = Jᵀ ∇²ᵤθ J.
 *
 * PSD projection: there is no analytic eigensystem, so ANALYTIC and CLAMP both clamp
 * the eigenvalues of the Hessian (weft_psd_clamp), on the subspace where it can be
 * non-zero. H annihilates the rigid translations and also ν, the stretch along the edge,
 * ν_i = ((p_i − p0)·ê) ê: under p ↦ p0 + (I + t êêᵀ)(p − p0) (ê fixed, so this is the
 * straight line x + t ν), e ↦ (1 + t) e and a ↦ a + t (a·ê) ê, so nA = e × a ↦ (1 + t) nA
 * (likewise nB) and θ is constant on the whole line: ∇θ·ν = 0 everywhere. Differentiating
 * ∇θ(x)·ν(x) = 0 gives ∇²θ ν = −(∂ν/∂x)ᵀ ∇θ, whose terms are (∇θ_i·ê) ê = 0 (each ∇θ_i
 * is a combination of nA and nB, both ⊥ e) and Σ_i t_i ∇θ_i (t_i = (p_i − p0)·ê) taken
 * ⊥ ê; rotation invariance, Σ_i (p_i − p0) × ∇θ_i = 0, splits p_i − p0 = t_i ê + r_i with
 * r_i in the wing's plane, where r_i × ∇θ_i ∥ ê, so ê × Σ t_i ∇θ_i = 0 while Σ t_i ∇θ_i
 * ⊥ ê: Σ t_i ∇θ_i = 0. Hence ∇²θ ν = 0 and H ν = 0, and the projection is the clamp of
 * an 8×8 matrix (clamp_hinge) instead of 12×12: the same matrix to rounding (the PSD
 * projection is 1-Lipschitz in the Frobenius norm), checked against a full 12×12 clamp
 * by test_energies.hinge_projection. No cheap "already PSD" certificate helps away
 * from rest: ∇²θ restricted to that 8-dimensional space has 4 negative and 4 positive
 * eigenvalues (observed on random hinges; every one away from rest in
 * test_energies.hinge_projection needs clamping), so C ∇²θ + ∇θ∇θᵀ is indefinite
 * whenever C ≠ 0; at C = 0 exactly H = k ∇θ∇θᵀ is PSD and returned without an
 * eigen-solve (nor ∇²θ). A degenerate hinge (an edge
 * or triangle of zero size) has θ = 0 and ∇θ = 0 by weft_hinge_angle's convention, so
 * Ψ = ½ k θ0², g = 0 and H = 0 there.
 * Element data: v = (edge v0, v1, opposite v2, v3), rest[0] = θ0 (rad). */
#include "fem.h"

#include <math.h>
#include <string.h>

static void db_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    e->rest[0] = weft_hinge_angle(xe, xe + 3, xe + 6, xe + 9, NULL);
    double d[3] = {xe[3] - xe[0], xe[4] - xe[1], xe[5] - xe[2]};
    double ee = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    e->k = p->area > 0.0 ? p->stiffness * 3.0 * ee / p->area : 0.0;
}

static double db_constraint(const weft_element *e, const double *xe, double *grad) {
    double theta = weft_hinge_angle(xe, xe + 3, xe + 6, xe + 9, grad);
    return weft_wrap_angle(theta - e->rest[0]);
}

static double db_energy(const weft_element *e, const double *xe) {
    double C = db_constraint(e, xe, NULL);
    return 0.5 * e->k * C * C;
}

static double db_gradient(const weft_element *e, const double *xe, double *g) {
    double C = db_constraint(e, xe, g);
    for (int k = 0; k < 12; k++) g[k] *= e->k * C;
    return 0.5 * e->k * C * C;
}

/* ------------------------------------------------------------------------------ */
/* ∇²θ                                                                             */
/* ------------------------------------------------------------------------------ */

/* Blocks of u = (e, a, b) in 9-vectors and 9×9 matrices. */
enum { UE = 0, UA = 1, UB = 2 };

static double dot(const double *x, const double *y) {
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

static void cross(const double *x, const double *y, double *out) {
    out[0] = x[1] * y[2] - x[2] * y[1];
    out[1] = x[2] * y[0] - x[0] * y[2];
    out[2] = x[0] * y[1] - x[1] * y[0];
}

/* S = α I + β x yᵀ + γ y xᵀ (3×3 row-major). */
static void mat3(double alpha, double beta, const double *x, const double *y, double gamma,
                 double S[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            S[3 * i + j] = (i == j ? alpha : 0.0) + beta * x[i] * y[j] + gamma * y[i] * x[j];
}

/* The cross-product matrix [x]×, [x]× y = x × y, scaled by w. */
static void skew(const double *x, double w, double S[9]) {
    S[0] = 0.0, S[1] = -w * x[2], S[2] = w * x[1];
    S[3] = w * x[2], S[4] = 0.0, S[5] = -w * x[0];
    S[6] = -w * x[1], S[7] = w * x[0], S[8] = 0.0;
}

/* Adds S to block (U, V) of the symmetric 9×9 M and, when U ≠ V, Sᵀ to block (V, U). */
static void add_block(double M[81], int U, int V, const double S[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            M[9 * (3 * U + i) + 3 * V + j] += S[3 * i + j];
            if (U != V) M[9 * (3 * V + j) + 3 * U + i] += S[3 * i + j];
        }
}

/* ∇²θ (12×12 row-major, rad/m²) of weft_hinge_angle at a non-degenerate hinge xe.
 * θ is scale-invariant, θ(λx) = θ(x), so the derivatives are taken at u/|e| (where
 * s, c = O(1) whatever the mesh size) and scaled back: ∇²θ(u) = ∇²θ(u/|e|)/|e|². */
static void angle_hessian(const double *xe, double Ht[144]) {
    double le = sqrt((xe[3] - xe[0]) * (xe[3] - xe[0]) + (xe[4] - xe[1]) * (xe[4] - xe[1]) +
                     (xe[5] - xe[2]) * (xe[5] - xe[2]));
    double e[3], a[3], b[3];
    for (int k = 0; k < 3; k++) {
        e[k] = (xe[3 + k] - xe[k]) / le;
        a[k] = (xe[6 + k] - xe[k]) / le;
        b[k] = (xe[9 + k] - xe[3 + k]) / le;
    }
    double ee = dot(e, e), n = sqrt(ee), ab = dot(a, b), ea = dot(e, a), eb = dot(e, b);
    double axb[3], bxe[3], exa[3];
    cross(a, b, axb), cross(b, e, bxe), cross(e, a, exa);
    double D = dot(e, axb); /* det[e, a, b] */

    /* First derivatives (9-vectors over u = (e, a, b)):
     *   ∇D = (a × b, b × e, e × a),   ∇|e| = (ê, 0, 0),   s = −|e| D,
     *   P = (e·e)(a·b) − (e·b)(e·a),  c = −P,
     *   ∇P = (2(a·b) e − (e·a) b − (e·b) a,  (e·e) b − (e·b) e,  (e·e) a − (e·a) e). */
    double dD[9], dn[9] = {0}, dP[9], ds[9], dc[9];
    for (int k = 0; k < 3; k++) {
        dD[3 * UE + k] = axb[k], dD[3 * UA + k] = bxe[k], dD[3 * UB + k] = exa[k];
        dn[3 * UE + k] = e[k] / n;
        dP[3 * UE + k] = 2.0 * ab * e[k] - ea * b[k] - eb * a[k];
        dP[3 * UA + k] = ee * b[k] - eb * e[k];
        dP[3 * UB + k] = ee * a[k] - ea * e[k];
    }
    double s = -n * D, c = -(ee * ab - eb * ea);
    for (int i = 0; i < 9; i++) ds[i] = -(D * dn[i] + n * dD[i]), dc[i] = -dP[i];

    /* Second derivatives. D is trilinear: ∂²D/∂e∂a = −[b]×, ∂²D/∂a∂b = −[e]×,
     * ∂²D/∂b∂e = −[a]×, zero diagonal blocks. ∂²|e|/∂e² = (I − êêᵀ)/|e|.
     *   ∇²s = −(D ∇²|e| + ∇|e| ∇Dᵀ + ∇D ∇|e|ᵀ + |e| ∇²D).
     * P: ∂²P/∂e² = 2(a·b) I − b aᵀ − a bᵀ,  ∂²P/∂e∂a = 2 e bᵀ − b eᵀ − (e·b) I,
     *    ∂²P/∂e∂b = 2 e aᵀ − a eᵀ − (e·a) I,  ∂²P/∂a∂b = (e·e) I − e eᵀ,
     *    ∂²P/∂a² = ∂²P/∂b² = 0;  ∇²c = −∇²P. */
    double D2[81] = {0}, n2[81] = {0}, P2[81] = {0}, S[9];
    skew(b, -1.0, S), add_block(D2, UE, UA, S);
    skew(e, -1.0, S), add_block(D2, UA, UB, S);
    skew(a, -1.0, S), add_block(D2, UB, UE, S);
    mat3(1.0 / n, -1.0 / (n * ee), e, e, 0.0, S), add_block(n2, UE, UE, S);
    mat3(2.0 * ab, -1.0, b, a, -1.0, S), add_block(P2, UE, UE, S);
    mat3(-eb, 2.0, e, b, 0.0, S);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) S[3 * i + j] -= b[i] * e[j];
    add_block(P2, UE, UA, S);
    mat3(-ea, 2.0, e, a, 0.0, S);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) S[3 * i + j] -= a[i] * e[j];
    add_block(P2, UE, UB, S);
    mat3(ee, -1.0, e, e, 0.0, S), add_block(P2, UA, UB, S);

    /* ∇²θ over u: (c ∇²s − s ∇²c)/r² − (Q Gᵀ + G Qᵀ). */
    double r2 = s * s + c * c, G[9], Q[9], M[81];
    for (int i = 0; i < 9; i++) {
        G[i] = (c * ds[i] - s * dc[i]) / r2;
        Q[i] = (s * ds[i] + c * dc[i]) / r2;
    }
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++) {
            int ij = 9 * i + j;
            double s2 = -(D * n2[ij] + dn[i] * dD[j] + dD[i] * dn[j] + n * D2[ij]);
            double c2 = -P2[ij];
            M[ij] = (c * s2 - s * c2) / r2 - (Q[i] * G[j] + G[i] * Q[j]);
        }

    /* x → u: e = p1 − p0, a = p2 − p0, b = p3 − p1 (vertex, sign) pairs per block; then
     * ∇²ₓθ = Jᵀ M J / |e|² (the scale factor of the normalisation above). */
    static const int vert[3][2] = {{1, 0}, {2, 0}, {3, 1}};
    static const double sign[2] = {1.0, -1.0};
    double w = 1.0 / (le * le);
    memset(Ht, 0, 144 * sizeof *Ht);
    for (int U = 0; U < 3; U++)
        for (int V = 0; V < 3; V++)
            for (int p = 0; p < 2; p++)
                for (int q = 0; q < 2; q++) {
                    int va = vert[U][p], vb = vert[V][q];
                    double f = w * sign[p] * sign[q];
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 3; j++)
                            Ht[12 * (3 * va + i) + 3 * vb + j] +=
                                f * M[9 * (3 * U + i) + 3 * V + j];
                }
}

/* PSD projection of a non-degenerate hinge's H (12×12, which it overwrites) by clamping
 * an 8×8 eigenproblem: H annihilates the 4-dimensional space N spanned by the three
 * rigid translations and the stretch along the edge ν, ν_i = ((p_i − p0)·ê) ê (see the
 * file comment), so H = Qᵀ (Q H Qᵀ) Q for any orthonormal basis Q (8×12) of N's
 * orthogonal complement, and the clamp of Q H Qᵀ mapped back is the clamp of H. Q is the
 * Helmert basis of the translation-free subspace (9×12, as in
 * weft_psd_clamp_translation_free) followed by the Householder reflection that sends ν's
 * coordinates y in it to the last axis; its first 8 rows are Q. y ≠ 0 because ν0 = 0 and
 * ν1 = e are not equal (ν is not a translation). */
static void clamp_hinge(double H[144], const double *xe) {
    double B[3][4] = {{0}};
    for (int r = 1; r < 4; r++) {
        double c = 1.0 / sqrt((double)r * (r + 1));
        for (int a = 0; a < 4; a++) B[r - 1][a] = a < r ? c : a == r ? -r * c : 0.0;
    }
    double e[3] = {xe[3] - xe[0], xe[4] - xe[1], xe[5] - xe[2]}, ee = dot(e, e), t[4];
    for (int a = 0; a < 4; a++)
        t[a] = ((xe[3 * a] - xe[0]) * e[0] + (xe[3 * a + 1] - xe[1]) * e[1] +
                (xe[3 * a + 2] - xe[2]) * e[2]) / ee;
    /* y = Q9 ν, Q9's entry (3r + i, 3a + j) = B[r][a] δij; then the Householder vector
     * v = y + sign(y8) |y| e8, P = I − 2 v vᵀ / (vᵀv), Q = (P Q9)[0..7]. */
    double y[9], yy = 0.0;
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 3; i++) {
            double sum = 0.0;
            for (int a = 0; a < 4; a++) sum += B[r][a] * t[a];
            y[3 * r + i] = sum * e[i];
            yy += y[3 * r + i] * y[3 * r + i];
        }
    y[8] += copysign(sqrt(yy), y[8]);
    double vv = 0.0, Q[8][12], vQ[12] = {0};
    for (int k = 0; k < 9; k++) vv += y[k] * y[k];
    for (int r = 0; r < 3; r++) /* vQ = vᵀ Q9 */
        for (int i = 0; i < 3; i++)
            for (int a = 0; a < 4; a++) vQ[3 * a + i] += y[3 * r + i] * B[r][a];
    for (int k = 0; k < 8; k++)
        for (int col = 0; col < 12; col++) {
            int a = col / 3, j = col % 3;
            double q9 = k % 3 == j ? B[k / 3][a] : 0.0;
            Q[k][col] = q9 - 2.0 * y[k] / vv * vQ[col];
        }
    /* R = Q H Qᵀ (8×8): the lower triangle, mirrored, so exactly symmetric. */
    double T[8][12], R[64];
    for (int k = 0; k < 8; k++)
        for (int col = 0; col < 12; col++) {
            double sum = 0.0;
            for (int m = 0; m < 12; m++) sum += Q[k][m] * H[12 * m + col];
            T[k][col] = sum;
        }
    for (int k = 0; k < 8; k++)
        for (int l = 0; l <= k; l++) {
            double sum = 0.0;
            for (int m = 0; m < 12; m++) sum += T[k][m] * Q[l][m];
            R[8 * k + l] = R[8 * l + k] = sum;
        }
    if (!weft_psd_clamp(R, 8)) return; /* already PSD: H stays exact, bit for bit */
    /* H = Qᵀ R Q, the lower triangle mirrored. */
    for (int k = 0; k < 8; k++)
        for (int col = 0; col < 12; col++) {
            double sum = 0.0;
            for (int l = 0; l < 8; l++) sum += R[8 * k + l] * Q[l][col];
            T[k][col] = sum;
        }
    for (int i = 0; i < 12; i++)
        for (int j = 0; j <= i; j++) {
            double sum = 0.0;
            for (int k = 0; k < 8; k++) sum += Q[k][i] * T[k][j];
            H[12 * i + j] = H[12 * j + i] = sum;
        }
}

static double db_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                         double *g, double *H) {
    double gt[12];
    double C = db_constraint(e, xe, gt); /* gt = ∇θ */
    double psi = 0.5 * e->k * C * C;
    if (g)
        for (int k = 0; k < 12; k++) g[k] = gt[k] * (e->k * C);
    memset(H, 0, 144 * sizeof *H);
    /* weft_hinge_angle returns ∇θ = 0 exactly when the hinge is degenerate; otherwise
     * ∂θ/∂p2 = −|e| nA/|nA|² ≠ 0. */
    if (gt[6] == 0.0 && gt[7] == 0.0 && gt[8] == 0.0) return psi;
    /* At the rest angle (C = 0, e.g. every hinge of a cloth at rest) H = k ∇θ ∇θᵀ, which
     * is PSD as it stands: nothing to project, and ∇²θ is not needed. */
    if (C == 0.0) {
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < 12; j++) H[12 * i + j] = e->k * gt[i] * gt[j];
        return psi;
    }
    double Ht[144];
    angle_hessian(xe, Ht);
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) H[12 * i + j] = e->k * (gt[i] * gt[j] + C * Ht[12 * i + j]);
    /* Exactly symmetric (the sums above round differently in the two triangles). */
    for (int i = 0; i < 12; i++)
        for (int j = i + 1; j < 12; j++)
            H[12 * i + j] = H[12 * j + i] = 0.5 * (H[12 * i + j] + H[12 * j + i]);
    if (mode != WEFT_HESSIAN_EXACT) clamp_hinge(H, xe);
    return psi;
}

const weft_energy_type weft_dihedral_bending = {
    .name = "dihedral_bending",
    .paper = "Mueller 2006 §4.1; Grinspun et al. 2003 (hinge weight 3|e|^2/A)",
    .summary = "hinge bending 1/2 k (theta - theta0)^2, k = D 3|e|^2 / A",
    .kind = WEFT_ELEM_HINGE,
    .nv = 4,
    .init = db_init,
    .energy = db_energy,
    .gradient = db_gradient,
    .hessian = db_hessian,
    .analytic_psd = false,
    .constraint = db_constraint,
};
