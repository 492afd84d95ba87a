/* STREAM's timing loop (McCalpin): copy c = a, scale b = s*c, add c = a + b and triad
 * a = b + s*c, run round-robin, each kernel's best of `repeats` (STREAM's NTIMES, 10) with
 * OpenMP on all cores, for comparison with `roofline-explorer --measure`, which runs its kernels
 * the same way. Bytes are counted as STREAM counts them (16 per element for copy and scale, 24
 * for add and triad, no write-allocate). Build and run: benchmarks/bench_measure.py does it, or
 *   gcc -O3 -march=native -fopenmp benchmarks/stream_triad.c -o build/stream_triad
 *   ./build/stream_triad [elements] [repeats]
 * Prints the best triad and add rates in GB/s (1e9 B/s), the thread count, copy and scale. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 40000000L; /* 3 x 320 MB, far past any cache */
    int repeats = argc > 2 ? atoi(argv[2]) : 10;
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)),
           *c = malloc(n * sizeof(double));
    if (!a || !b || !c) { fprintf(stderr, "out of memory\n"); return 1; }
    const double s = 3.0;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) { a[i] = 1.0; b[i] = 2.0; c[i] = 0.5; } /* first touch */
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    for (int r = 0; r < repeats; r++) {
        double t[4];
        t[0] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) c[i] = a[i];
        t[0] = omp_get_wtime() - t[0];
        t[1] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) b[i] = s * c[i];
        t[1] = omp_get_wtime() - t[1];
        t[2] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
        t[2] = omp_get_wtime() - t[2];
        t[3] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        t[3] = omp_get_wtime() - t[3];
        for (int k = 0; k < 4; k++) if (t[k] < best[k]) best[k] = t[k];
    }
    double check = 0;
    for (long i = 0; i < n; i += n / 16) check += a[i];
    printf("triad_gbps %.3f threads %d elements %ld add_gbps %.3f check %.1f copy_gbps %.3f "
           "scale_gbps %.3f\n", 24.0 * n / best[3] / 1e9, omp_get_max_threads(), n,
           24.0 * n / best[2] / 1e9, check, 16.0 * n / best[0] / 1e9, 16.0 * n / best[1] / 1e9);
    free(a); free(b); free(c);
    return 0;
}
