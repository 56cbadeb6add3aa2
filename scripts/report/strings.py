"""Every text of the generated blocks, English and Chinese (common.text looks them up). %-formats and
{placeholders} are filled where the text is used."""

TEXT = {
    "limits head": ("| counter | kernel |", "| 计数器 | kernel |"),
    "limits dram_pct": ("DRAM throughput, % of peak", "DRAM 吞吐，峰值的 %"),
    "limits long_sb": ("waiting on a global load (long scoreboard), warps per issue",
                       "等待全局加载（long scoreboard），每次发射的 warp 数"),
    "limits membar": ("waiting on a memory fence (membar), warps per issue", "等待内存栅栏（membar），每次发射的 warp 数"),
    "limits grid": ("blocks", "线程块数"),
    "noisy note": ("\n~: the runs' spread (their interquartile range over their median) stayed above its "
                   "program's threshold in three batches (see docs/results.md).\n",
                   "\n~：这一行各次运行的离散度（四分位距除以中位数）重测三批后仍高于程序给出的阈值（见 docs/results.zh-CN.md）。\n"),
    "rows caption": ("%s, %d fp32 elements as rows of each length; GB/s of the matrix read and the row "
                     "sums written, medians with L2 flushed before every run; theoretical DRAM peak "
                     "%.0f GB/s.\n\n",
                     "%s，%d 个 fp32 元素按各行长排成矩阵；GB/s 按读取的矩阵与写出的行和计算，每次运行前刷新 L2，取中位数；理论 DRAM 峰值 %.0f GB/s。\n\n"),
    "crossover": ("\nCrossover: from %d columns per row on, the fastest block-per-row kernel beats the "
                  "fastest warp-per-row kernel.\n",
                  "\n交叉点：从每行 %d 列起，最快的每行一个线程块的 kernel 胜过最快的每行一个 warp 的 kernel。\n"),
    "no crossover": ("\nNo crossover in this range: the fastest warp-per-row kernel is at least as fast at "
                     "every row length.\n",
                     "\n此范围内没有交叉点：在每个行长上，最快的每行一个 warp 的 kernel 都至少一样快。\n"),
    "caption": ("%s, N = %d; GB/s of %s, medians with L2 flushed before every run; theoretical DRAM peak "
                "%.0f GB/s, measured device-to-device copy %.0f GB/s.\n\n",
                "%s，N = %d；GB/s 按%s计算，每次运行前刷新 L2，取中位数；理论 DRAM 峰值 %.0f GB/s，实测设备内拷贝 %.0f GB/s。\n\n"),
    "bytes moved": ("the bytes each kernel must read and write (a scan's output too)",
                    "每个 kernel 必须读写的字节（扫描还包括它的输出）"),
    "bytes read": ("input bytes", "输入字节"),
    "head best": ("| stage | best kernel | time (µs) | GB/s | % of peak | speed-up vs {base} | x CUB "
                  "| check |",
                  "| 阶段 | 最快的 kernel | 时间 (µs) | GB/s | 占峰值 % | 相对 {base} 加速 | x CUB | 检查 |"),
    "head stage": ("| kernel | time (µs) | GB/s | % of peak | speed-up vs {base} | x CUB | rel. error "
                   "| check |",
                   "| kernel | 时间 (µs) | GB/s | 占峰值 % | 相对 {base} 加速 | x CUB | 相对误差 | 检查 |"),
    "head all": ("| kernel | time (µs) | GB/s | % of peak | speed-up vs {base} | x CUB | check |",
                 "| kernel | 时间 (µs) | GB/s | 占峰值 % | 相对 {base} 加速 | x CUB | 检查 |"),
    "library": ("library | `cub::DeviceReduce::Sum`", "库 | `cub::DeviceReduce::Sum`"),
    "limit": ("limit | speed of light", "上限 | SOL"),
    "sol": ("speed of light", "SOL（带宽上限）"),
    "x CUB at": ("| x CUB at N = |", "| x CUB，N = |"),
    "sol µs": ("| speed of light (µs) |", "| SOL (µs) |"),
    "sol over": ("| speed of light / `{k}` |", "| SOL / `{k}` |"),
    "trip µs": ("| the same with one DRAM round trip (µs) |", "| 同上，加一次 DRAM 往返 (µs) |"),
    "trip over": ("| that / `{k}` |", "| 它 / `{k}` |"),
    "times caption": ("Time in µs at every N of the run (medians, L2 flushed); an empty kernel between the "
                      "timing events takes %.1f µs.\n\n",
                      "这次运行每个 N 上的时间（µs，中位数，刷新 L2）；计时事件之间的一个空 kernel 需要 %.1f µs。\n\n"),
    "µs at": ("| µs at N = |", "| µs，N = |"),
    "targets head": ("| target | N | needs |", "| 目标 | N | 要求 |"),
    "met": ("met", "达成"),
    "not held": ("not held: {stage} {numbers} changed since this run", "不再对照：这次运行之后阶段 {numbers} 有改动"),
    "stage": ("stage", "阶段"),
    "stages": ("stages", "阶段"),
    "not met": ("**not met**", "**未达成**"),
    "at": ("at", "于"),
    "error by N": ("Relative error (bound) against N:", "相对误差（界）随 N 的变化："),
    "error head": ("| kernel | data |", "| kernel | 数据 |"),
    "error by cond": ("Relative error (bound) against the condition number sum|x| / |sum x|, N = %d:",
                      "相对误差（界）随条件数 sum|x| / |sum x| 的变化，N = %d："),
    "chain caption": ("%s (%s, N = %d), beside this run at the same N; the speed-up is each step's over "
                      "the step before:\n\n",
                      "%s（%s，N = %d），与本次运行在同一 N 上的结果并列；加速比是每一步相对前一步的：\n\n"),
    "chain head": ("| step | kernel | article: ms | GB/s | speed-up | this run: µs | GB/s | % of peak "
                   "| speed-up | check |",
                   "| 步骤 | kernel | 文章：ms | GB/s | 加速比 | 本次运行：µs | GB/s | 占峰值 % | 加速比 | 检查 |"),
    "grid caption": ("%s (%s), beside this run at each S×K of its grid (N = S·K elements of %s): times in "
                     "µs (the article's printed in ms); x torch and x CUB are torch's and CUB's time over "
                     "`%s`'s (>1: `%s` is faster).\n\n",
                     "%s（%s），与本次运行在其网格的每个 S×K 上并列（N = S·K 个 %s 元素）：时间单位为 µs（文章打印的是 ms）；x torch 与 x CUB 是 "
                     "torch 与 CUB 的时间除以 `%s` 的（>1：`%s` 更快）。\n\n"),
    "article": ("article: ", "文章："),
    "this run": ("this run: ", "本次运行："),
    "drift caption": ("\nThe sums of the %s data: the article's as each printed sum's relative difference "
                      "from `%s`'s; this run's as each kernel's error against the fp64 sum of its input.\n\n",
                      "\n%s 数据的和：文章的，以每个打印出的和相对 `%s` 的和的相对差表示；本次运行的，以每个 kernel 相对其输入的 fp64 和的误差表示。\n\n"),
    "claims caption": ("%s: the article's claims beside this run (slower by: the first kernel's time over "
                       "the second's, at the same N):\n\n",
                       "%s：文章的说法与本次运行并列（慢多少倍：第一个 kernel 的时间除以第二个的，在同一 N 上）：\n\n"),
    "claims head": ("| claim | kernel | than | N | article: slower by | this run: µs | than: µs "
                    "| slower by | check |",
                    "| 说法 | kernel | 相比 | N | 文章：慢多少倍 | 本次运行：µs | 相比：µs | 慢多少倍 | 检查 |"),
    "about": ("about ", "约 "),
    "list sep": (", ", "、"),
    "list and": (" and ", " 和 "),
    "flush caption": ("The L2 flush, checked with hardware counters (`scripts/flush_check.sh`: Nsight "
                      "Compute, `dram__bytes_read.sum`, `--cache-control none`), the run that read least "
                      "of each:",
                      "L2 刷新的硬件计数器检查（`scripts/flush_check.sh`：Nsight Compute，`dram__bytes_read.sum`，"
                      "`--cache-control none`），每项取读得最少的一次运行："),
    "flush head": ("| kernel | loads | N | input (MiB) | L2 | runs | DRAM bytes read / input | check |",
                   "| kernel | 加载方式 | N | 输入 (MiB) | L2 | 运行次数 | DRAM 读取字节 / 输入 | 检查 |"),
    "flush note": ("Flushed: every run must read at least 99% of its input from DRAM. Warm (no flush, the "
                   "input left in L2): the control, which must read under half, to show that the counter "
                   "sees L2 hits.",
                   "flushed：每次运行必须至少从 DRAM 读到输入的 99%。warm（不刷新，输入留在 L2 中）：对照组，必须低于一半，以说明计数器能看到 L2 命中。"),
    "no accuracy": ("No accuracy results are committed for this GPU (`make accuracy`, then "
                    "`make reference`).",
                    "这块 GPU 还没有提交精度结果（先 `make accuracy`，再 `make reference`）。"),
    "accuracy alt": ("relative error against N and against the condition number", "相对误差随 N 和随条件数的变化"),
    "accuracy tables at": ("Each kernel's error and its bound, by N and by condition number, are tabled on the "
                           "{gpu}'s page: [accuracy]({page}).",
                           "每个 kernel 的误差及其界（随 N、随条件数）列在 {gpu} 的页面上：[精度]({page})。"),
    "accuracy caption": ("{gpu}, `make accuracy`:", "{gpu}，`make accuracy`："),
    "same results": ("The same on the {gpu}:", "{gpu} 上的同样结果："),
    "same results at": ("The same on the {gpu}, a record of commit `{commit}` (its page lists the stages changed "
                        "since):", "{gpu} 上的同一组表，是在提交 `{commit}` 上跑的一次记录（此后改过哪些阶段，见它的页面）："),
    "bench head": ("| stage | program | kernels | bench sizes | bench fills | also timed with the L2 warm |",
                   "| 阶段 | 程序 | kernel 数 | 基准测试规模 | 基准测试数据 | 另在 L2 保温时计时 |"),
    "sizes": ("sizes", "个规模"),
    "multi-GPU sum": ("%s, %s: the sum of %d fp32 elements spread over the GPUs, each shard reduced by "
                      "stage %s and the partials all-reduced: %.1f µs, %.0f GB/s of input, check %s.",
                      "%s，%s：%d 个 fp32 元素分布在各 GPU 上求和，每个分片由阶段 %s 归约，部分和再做 all-reduce：%.1f µs，输入 %.0f GB/s，"
                      "检查 %s。"),
    "all-reduce caption": ("The all-reduce's bus bandwidth in GB/s, a column per run (`allreduce_gG`: on G GPUs; "
                           "`_procs`: one process per GPU), against the bytes each GPU holds; a run whose check "
                           "failed is marked FAIL:",
                           "all-reduce 的总线带宽（GB/s），每次运行一列（`allreduce_gG`：在 G 块 GPU 上；`_procs`：每块 GPU 一个进程），"
                           "按每个 GPU 持有的字节数排列；校验失败的运行标 FAIL："),
    "all-reduce head": ("| dtype | bytes per GPU |", "| dtype | 每个 GPU 的字节数 |"),
    "targets caption": ("The stage's targets (`targets.csv`), on every reference GPU's committed results: the "
                        "worst ratio over the sizes, and where (a run of an earlier commit is not held to a target "
                        "that reads a stage changed since):",
                        "本阶段的目标（`targets.csv`），在每块参考 GPU 已提交的结果上：各规模中最差的比值及其位置"
                        "（早先某次提交上的运行，不再对照读到此后有改动的阶段的目标）："),
    "ratios caption": ("The targets, at every N of the run (>1: faster than CUB):",
                       "各目标，在这次运行的每个 N 上（>1：比 CUB 快）："),
    "limits caption": ("What limits each N: Nsight Compute's counters of the timed run "
                       "(`make limits`, {gpu}):",
                       "每个 N 的限制因素：被计时那次运行的 Nsight Compute 计数器（`make limits`，{gpu}）："),
    "limits other": ("The same counters on the {gpu}: [limits.csv](../../{path}).",
                     "{gpu} 上的同样计数器：[limits.csv](../../{path})。"),
    "demo caption": ("`make stage-{num} demo` on the {gpu}, from its reference results:",
                     "{gpu} 上的 `make stage-{num} demo`，取自它的参考结果："),
    "demo other": ("The same on the {gpu}: [{name}](../../{path}).", "{gpu} 上的同样输出：[{name}](../../{path})。"),
    "tree missing": ("`{k}` is not recorded yet: run make stage-{num} tree on a machine with a GPU.",
                     "`{k}` 尚未记录：在有 GPU 的机器上运行 make stage-{num} tree。"),
    "tree alt": ("the reduction tree of {k}", "{k} 的归约树"),
    "tree counts": ("One block of `{k}`: shared-memory loads {ld} instruction{ld_s}, {ldw} "
                    "wavefront{ldw_s}; stores {st} instruction{st_s}, {stw} wavefront{stw_s}; {adds} "
                    "addition{adds_s}, {unused} of them unused (no result needs their sums).",
                    "`{k}` 的一个线程块：共享内存读 {ld} 条指令、{ldw} 个 wavefront；写 {st} 条指令、{stw} 个 wavefront；{adds} 次加法，"
                    "其中 {unused} 次的和没有任何结果用到。"),
    "tree loop": (" Before the tree each of its {threads} threads adds {per} input elements in registers ({loads} "
                  "global loads, recorded with the tree; the row above the elements).",
                  "进入归约树之前，它的 {threads} 个线程各自先在寄存器里加 {per} 个输入元素（共 {loads} 次全局读取，"
                  "与树一起记录；即元素上面那一行）。"),
}
