/* sweep_slurm.c — `sweep slurm DIR [--chunk N] [--throttle N] [--time T] [--partition P]
 * [--mem M] [--cpus N]`: writes DIR/slurm.sh, an sbatch script whose array task T runs
 * lines T*CHUNK+1 .. (T+1)*CHUNK of DIR/jobs.txt, at most THROTTLE tasks at once, each
 * task's output in DIR/slurm/. CHUNK defaults to 1, or to what keeps the array within
 * Slurm's default MaxArraySize (1001 tasks). */
#include "cli.h"
#include "sweep.h"
#include "sweep_tool.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The script's text: the #SBATCH header (vals: the options, as sweep_slurm reads them),
 * then the loop over the task's lines. */
static const char *script(const char *name, const char *dir, const char *jobs_path, int chunk,
                          int tasks, int throttle, int cpus, const char *const *vals) {
    sweep_text t = {0};
    sweep_add(&t,
              "#!/bin/sh\n"
              "# Slurm batch script of the weft sweep '%s', written by './weft sweep slurm'.\n"
              "# Array task T runs lines T*%d+1 .. (T+1)*%d of %s\n"
              "# (each line skips a run whose summary is complete, so resubmitting resumes).\n"
              "# Submit:  sbatch %s/slurm.sh\n"
              "# Then:    ./weft sweep merge %s\n"
              "#SBATCH --job-name=weft-%s\n"
              "#SBATCH --array=0-%d%%%d\n"
              "#SBATCH --ntasks=1\n"
              "#SBATCH --cpus-per-task=%d\n"
              "#SBATCH --output=%s/slurm/task-%%A_%%a.log\n",
              name, chunk, chunk, jobs_path, dir, dir, name, tasks - 1, throttle, cpus, dir);
    if (vals[2]) sweep_add(&t, "#SBATCH --time=%s\n", vals[2]);
    if (vals[3]) sweep_add(&t, "#SBATCH --partition=%s\n", vals[3]);
    if (vals[4]) sweep_add(&t, "#SBATCH --mem=%s\n", vals[4]);
    sweep_add(&t,
              "\n"
              "# On a cluster, load here what weft was built with, e.g.\n"
              "#   module load gcc suitesparse openblas gnuplot\n"
              "set -u\n"
              "export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}\n"
              "jobs='%s'\n"
              "chunk=%d\n"
              "task=${SLURM_ARRAY_TASK_ID:?not run as a Slurm array task}\n"
              "i=$((task * chunk + 1))\n"
              "last=$((i + chunk - 1))\n"
              "status=0\n"
              "while [ \"$i\" -le \"$last\" ]; do\n"
              "    line=$(sed -n \"${i}p\" \"$jobs\")\n"
              "    if [ -n \"$line\" ]; then\n"
              "        echo \"weft sweep: task $task: run $i\"\n"
              "        sh -c \"$line\" || { echo \"weft sweep: run $i failed\"; status=1; }\n"
              "    fi\n"
              "    i=$((i + 1))\n"
              "done\n"
              "exit \"$status\"\n",
              jobs_path, chunk);
    return t.s;
}

int sweep_slurm(int argc, char **argv) {
    static const char *const own[] = {"chunk", "throttle", "time", "partition",
                                      "mem",   "cpus",     NULL};
    const char *vals[6] = {NULL, "32", NULL, NULL, NULL, "1"};
    weft_sweep_take(&argc, argv, own, vals);
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "error: sweep slurm: expected one sweep directory (see --help)\n");
        return 2;
    }
    int throttle = weft_sweep_count("throttle", vals[1], 1e6);
    int cpus = weft_sweep_count("cpus", vals[5], 1024);
    for (int i = 2; i <= 4; i++)
        if (vals[i] && (strchr(vals[i], '\'') || strchr(vals[i], '\n') || strchr(vals[i], ' '))) {
            fprintf(stderr, "error: --%s: '%s' holds a quote, space or newline\n", own[i], vals[i]);
            return 2;
        }
    char dir[PATH_MAX];
    if (!sweep_absolute(argv[1], dir, sizeof dir)) {
        fprintf(stderr, "error: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    const char *jobs_path = sweep_printf("%s/jobs.txt", dir);
    const char *jobs = sweep_slurp(jobs_path, false);
    if (!jobs) return 2;
    int nj = 0;
    for (const char *p = jobs; *p; p++) nj += *p == '\n';
    if (nj == 0) {
        fprintf(stderr, "error: %s: no jobs\n", jobs_path);
        return 2;
    }
    sweep_spec s;
    if (!sweep_spec_read(sweep_printf("%s/spec.ini", dir), &s, false)) return 2;
    /* Slurm's default MaxArraySize is 1001 (indices 0..1000): chunk larger sweeps. */
    int chunk = vals[0] ? weft_sweep_count("chunk", vals[0], 1e6) : (nj + 1000) / 1001;
    int tasks = (nj + chunk - 1) / chunk;
    if (weft_mkdirs(sweep_printf("%s/slurm", dir)) != 0) return 1;
    const char *out = sweep_printf("%s/slurm.sh", dir);
    if (sweep_write_file(out, script(s.name, dir, jobs_path, chunk, tasks, throttle, cpus, vals)) !=
        0)
        return 1;
    chmod(out, 0755);
    fprintf(stderr,
            "sweep %s: %d runs in %d array task%s of %d, at most %d at once\n"
            "  script:   %s\n  submit:   sbatch %s\n",
            s.name, nj, tasks, tasks > 1 ? "s" : "", chunk, throttle, out, out);
    printf("%s\n", out);
    return 0;
}
