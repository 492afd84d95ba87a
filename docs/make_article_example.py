"""Writes resources/examples/the-article-claim-by-claim.roofline (Help → Examples): one kernel
per claim of the article, each note stating the numbers tests/test_article.py checks; and its
Japanese version, the-article-claim-by-claim.ja.roofline (the article's readers' own words, the
same kernels and numbers), which Help → Examples offers in its place in Japanese.
Run it again after changing a preset:  python docs/make_article_example.py"""
from dataclasses import replace
from pathlib import Path

import roofline_gui.api as rf
from roofline_gui.io.presets import default_presets
from roofline_gui.io.session import save_session

P = default_presets()
K = P.kernels

def named(k, name, source):
    return replace(k, name=name, source=source)

add = K["add-int8"]
CLAIM_4 = ("Claim 4, kernels differ by orders of magnitude: a CNN layer reuses each weight at "
           "every pixel and image (here 6,272 op per weight byte; the same layer at batch 1 with "
           "every operand in main memory reads 933 op/B, the article's ~1,000), MLPs and LSTMs "
           "only across "
           "the batch (400 and 128 here; about 100 in the article), so the first TPU was "
           "compute-bound on the CNN and memory-bound on the others. ")
kernels = [
    named(add, "1 · out = a + b, all in HBM (int8)",
          "Claim 1, memory-bound work: two 1-byte reads and one 1-byte write per add, 3 B/op "
          "(1/3 op/B). On the A100 (HBM2 1.555 TB/s): 1.555 TB/s ÷ 3 B = 518 Gop/s, 0.08% of "
          "its 624 Top/s int8 peak, however many ALUs it has."),
    named(add.with_params(n=1e7).with_resides({"a": "cache", "b": "cache"}),
          "2 · out = a + b, a and b kept on chip (int8)",
          "Claim 2, the memory hierarchy: a and b (10 MB each, n = 10 M) stay in the A100's 40 MB "
          "L2 across calls, so only out (1 B/op) crosses HBM: 1 op/B, 1.555 Top/s, 3× claim 1. "
          "The on-chip levels are about 10× faster than HBM (L1/shared 19.5 TB/s is 12.5×, L2 "
          "7 TB/s 4.5×): View → Memory levels shows the kernel's L2 point at 0.5 op/B under the "
          "L2 roof (3.5 Top/s) and its HBM point on the HBM roof."),
    named(K["gemm-4k-bf16-host"], "3 · GEMM 4096³, A and B over PCIe every call (bf16)",
          "Claim 3, the host link: A and B (2·4096²·2 B = 67 MB) cross PCIe Gen4 x16 every call "
          "at 32 GB/s each way (the 64 GB/s often quoted counts both directions): 2,048 op/B "
          "there, 65.5 Top/s on the A100, a fifth of its 312 Top/s bf16 peak, though at HBM "
          "the GEMM would be compute-bound."),
    named(K["cnn-int8-tpu"], "4a · TPU v1 CNN layer, activations on chip (int8)",
          CLAIM_4 + K["cnn-int8-tpu"].source),
    named(K["mlp-int8-tpu"], "4b · TPU v1 MLP layer, activations on chip (int8)",
          CLAIM_4 + K["mlp-int8-tpu"].source),
    named(K["lstm-int8-tpu"], "4c · TPU v1 LSTM step, activations on chip (int8)",
          CLAIM_4 + K["lstm-int8-tpu"].source),
    named(K["mlp-bf16-b1"], "5, 6 · MLP 4096×4096, batch 1 (bf16)",
          "Claims 5 and 6. Batching: every 2-byte weight serves one multiply-add, about 1 op/B; "
          "drag it right on the chart and the batch grows (batch 64: 62 op/B, 62× the rate on "
          "HBM). The same HBM: V100 (fp16, no bf16) and TPU v3 (bf16, no fp16) both have 900 "
          "GB/s; with View → Same-width precisions (on from the first start; or All kernels at "
          "→ 16-bit) V100 runs it at fp16 and both reach 900 Gop/s: 1.00×. The A100 (1.555 "
          "TB/s) reaches 1.73×."),
    named(K["mlp-bf16-b1"].with_precision("fp32"), "7 · MLP 4096×4096, batch 1 (fp32)",
          "Claim 7, lower precision: the same layer in fp32 moves 4-byte values, 0.5 op/B: on the "
          "A100 777 Gop/s, half of the bf16 layer's 1.555 Top/s (claim 5). bf16 halves the bytes "
          "and doubles the rate on memory-bound work, in training as in inference."),
]
chips = [P.chips[i] for i in ("nvidia-a100-sxm4-40gb", "google-tpu-v1", "google-tpu-v3",
                              "nvidia-v100-sxm2-16gb")]
doc = rf.session(chips, kernels, title="The article, claim by claim")
FOLDER = Path(__file__).resolve().parents[1] / "resources" / "examples"
save_session(doc, FOLDER / "the-article-claim-by-claim.roofline")
print([k.name for k in doc.kernels])

# The same kernels, chips and numbers, named and told in Japanese.
CLAIM_4_JA = ("主張 4、カーネルによって演算強度は桁違いに異なる: CNN の層は各重みを画素ごと・画像ごとに"
              "再利用します（ここでは重み 1 バイトあたり 6,272 op、B/F 0.00016。同じ層をバッチ 1、"
              "すべてのオペランドをメインメモリに置くと 933 op/B で、記事の約 1,000）。MLP と LSTM は"
              "バッチをまたいでしか再利用しません（ここでは 400 と 128、記事では約 100）。そのため"
              "初代 TPU は CNN では演算律速、ほかではメモリ律速でした。")
JAPANESE = [
    ("1 · out = a + b、すべて HBM 上（int8）",
     "主張 1、メモリ律速な処理: 加算 1 回あたり 1 バイトの読み込み 2 回と書き込み 1 回で 3 B/op"
     "（1/3 op/B）。A100（HBM2 1.555 TB/s）では 1.555 TB/s ÷ 3 B = 518 Gop/s。演算器が"
     "いくつあっても、int8 ピーク性能 624 Top/s の 0.08% にしかなりません。"),
    ("2 · out = a + b、a と b をチップ上に置く（int8）",
     "主張 2、メモリ階層: a と b（各 10 MB、n = 10 M）は呼び出しをまたいで A100 の 40 MB の L2 "
     "に残るので、HBM を通るのは out（1 B/op）だけ: 1 op/B（B/F 1）、1.555 Top/s、主張 1 の 3×。"
     "チップ上の階層は HBM の約 10× 速い（L1/共有メモリ 19.5 TB/s は 12.5×、L2 7 TB/s は 4.5×）。"
     "表示 → メモリ階層 で、カーネルの L2 の点が 0.5 op/B（B/F 2）で L2 ルーフ（3.5 Top/s）の下に、"
     "HBM の点が HBM ルーフ上に見えます。"),
    ("3 · GEMM 4096³、A と B を毎回 PCIe で転送（bf16）",
     "主張 3、ホストリンク: A と B（2·4096²·2 B = 67 MB）が毎回 PCIe Gen4 x16 を片方向 "
     "32 GB/s で渡ります（よく引用される 64 GB/s は両方向の合計）: そこで 2,048 op/B（B/F 0.00049）、A100 で "
     "65.5 Top/s。HBM 上なら演算律速の GEMM でも、bf16 ピーク性能 312 Top/s の 5 分の 1 です。"),
    ("4a · TPU v1 の CNN 層、活性化をチップ上に（int8）", CLAIM_4_JA),
    ("4b · TPU v1 の MLP 層、活性化をチップ上に（int8）", CLAIM_4_JA),
    ("4c · TPU v1 の LSTM の 1 ステップ、活性化をチップ上に（int8）", CLAIM_4_JA),
    ("5, 6 · MLP 4096×4096、バッチ 1（bf16）",
     "主張 5 と 6。バッチ処理: 2 バイトの重みはそれぞれ積和 1 回にしか使われず、約 1 op/B（B/F 約 1）。"
     "チャート上で右へドラッグするとバッチが大きくなります（バッチ 64 で 62 op/B、B/F 0.016、HBM 上で "
     "62× の速度）。同じ HBM: V100（fp16 あり、bf16 なし）と TPU v3（bf16 あり、fp16 なし）は"
     "どちらも 900 GB/s。表示 → 同じビット幅の精度で代替（初回起動からオン。"
     "または 全カーネルの精度 → 16 ビット）"
     "で V100 は fp16 で実行し、どちらも 900 Gop/s に達します: 1.00×。A100（1.555 TB/s）は "
     "1.73×。"),
    ("7 · MLP 4096×4096、バッチ 1（fp32）",
     "主張 7、精度を下げる: 同じ層を fp32 にすると 4 バイトの値を動かし 0.5 op/B（B/F 2）: A100 で "
     "777 Gop/s、bf16 の層の 1.555 Top/s（主張 5）の半分。bf16 はバイト数を半分にし、メモリ律速"
     "な処理では速度を 2 倍にします。推論でも学習でも同じです。"),
]
japanese = [replace(k, name=name, source=note) for k, (name, note) in zip(kernels, JAPANESE,
                                                                          strict=True)]
doc_ja = rf.session(chips, japanese, title="記事の主張をひとつずつ")
save_session(doc_ja, FOLDER / "the-article-claim-by-claim.ja.roofline")
print([k.name for k in doc_ja.kernels])
