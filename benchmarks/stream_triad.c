/* STREAM triad a[i] = b[i] + s*c[i] and add c[i] = a[i] + b[i] with OpenMP on all cores, for comparison with
 * `roofline-explorer --measure`. Bytes are counted as STREAM counts them (24 per element, no
 * write-allocate). Build and run: benchmarks/bench_measure.py does it, or
 *   gcc -O3 -march=native -fopenmp benchmarks/stream_triad.c -o build/stream_triad
 *   ./build/stream_triad [elements] [repeats]
 * Prints the best triad and add rates in GB/s (1e9 B/s) and the thread count. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 40000000L; /* 3 x 320 MB, far past any cache */
    int repeats = argc > 2 ? atoi(argv[2]) : 20;
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)),
           *c = malloc(n * sizeof(double));
    if (!a || !b || !c) { fprintf(stderr, "out of memory\n"); return 1; }
    const double s = 3.0;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) { a[i] = 1.0; b[i] = 2.0; c[i] = 0.5; } /* first touch */
    double best = 1e30, best_add = 1e30;
    for (int r = 0; r < repeats; r++) {
        double t = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        t = omp_get_wtime() - t;
        if (t < best) best = t;
        t = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
        t = omp_get_wtime() - t;
        if (t < best_add) best_add = t;
    }
    double check = 0;
    for (long i = 0; i < n; i += n / 16) check += a[i];
    printf("triad_gbps %.3f threads %d elements %ld add_gbps %.3f check %.1f\n",
           24.0 * n / best / 1e9, omp_get_max_threads(), n, 24.0 * n / best_add / 1e9, check);
    free(a); free(b); free(c);
    return 0;
}
