"""Writes each example's Japanese version, resources/examples/<name>.ja.roofline, from the
English one: the same chips, kernels, workloads and numbers, with the title, names and notes in
the article's readers' own words (Help → Examples offers it in its place in Japanese;
tests/test_translations.py compares the two). The article's own example has its script,
docs/make_article_example.py. Run it again after regenerating an English example, and update a
note here when its English numbers change (the test names the one that differs):
    python docs/make_japanese_examples.py"""
import json
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / "resources" / "examples"

#: notes two or three workloads of an example share
RESNET = (
            "He ら「Deep Residual Learning」CVPR 2016 の表 1（50 層）に、torchvision の v1.5 の変更（各ス"
            "テージ最初の 3×3 をストライド 2 に）を加えたもの。入力 224×224。torchvision によればパラメー"
            "タ 25,557,032 個、4.09 GMAC。学習における記事の主張。精度を下げると: A100 では bf16 の学習は "
            "tf32（4 バイトの値、ルーフは半分）の 1.95× の 画像/s、テンソルコアを使わない fp32 の 10.7× "
            "になります。TPU v3 には fp32 のルーフがそもそもありません（学習の精度は bf16）。同じ HBM なら"
            ": TPU v3 と V100（どちらも 900 GB/s）は bf16 で 8 チップあたり 32,002 と 32,313 画像/s で学"
            "習し（1.01×。V100 では fp16 が代わりを務めます、表示 → 同じビット幅の精度で代替）、"
            "記事のとおり同じ速さで"
            "すが、その理由は半分しか記事どおりではありません: CNN の学習ステップはそれぞれ 59% と 58% が"
            "演算律速で、16 ビットのルーフ（123 Top/s と 125 Top/s）は 1.02× しか違いません。残りのメモリ"
            "律速の部分は HBM が同じなので同じ速さで走ります（チップを選ぶと「なぜそこにあるか」が同じこと"
            "を言います）。ImageNet-1k を 90 エポック、8 チップでマイクロバッチ 64、SGD（モーメンタム付き"
            "）。")
DEEPSEEK_R1 = (
            "config.json は https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json に公開の"
            "もの。パラメータ数: 全体 671B、トークンあたりアクティブ 37B（モデルカード。マルチトークン予"
            "測モジュールの 14B は数えていません）。バッチ 64、コンテキスト 4,096 トークンで、FP8 の H200"
            " 8 基は最大 3,576 トークン/s（チップあたり 447）、NVFP4 の B200 4 基は最大 5,663（チップあたり "
            "1,416）でデコードします: チップあたり 3.17×。どちらもメモリ律速です: バッチ 64 の 1 ステップ"
            "は各層 256 個のエキスパートのうち約 222 個の重みを読みます。DeepSeek-R1 は DeepSeek-V3 のアー"
            "キテクチャです（config.json のフィールドも同じ）。")

T = {
    "a100-vs-tpu-v3.roofline": {
        "title": "A100 対 TPU v3: 古典的なカーネル",
        "k:k1:name": "out = a + b（int8）",
        "k:k1:source": (
            "加算一回あたり 1 バイトの読み出し二回と書き込み一回: 3 B/op、1/3 op/B。A100（1.555 TB/s）では"
            "演算器がいくつあっても 518 Gop/s です。"),
        "k:k2:name": "out = a + b（bf16）",
        "k:k2:source": "加算一回あたり 2 バイトの読み出し二回と書き込み一回: 6 B/op。",
        "k:k3:name": "MLP 層 4096×4096、バッチ 1（bf16）",
        "k:k3:source": (
            "バッチ 1: 2 バイトの重みはそれぞれ積和一回にしか使われず、約 1 op/B: どのチップでもメモリ律速"
            "です。ドラッグしてバッチを上げてみてください。"),
        "k:k4:name": "MLP 層 4096×4096、バッチ 64（bf16）",
        "k:k4:source": "バッチ 64: 約 62 op/B。",
        "k:k5:name": "LSTM ステップ、h = 1024、バッチ 64（bf16）",
        "k:k5:source": "約 2·B/b op/B: bf16 のバッチ 64 で ~62 op/B。",
        "k:k6:name": "CNN 層 3×3、256 ch、28×28（bf16、バッチ 4）",
        "k:k6:source": (
            "同じ層を bf16、画像 4 枚のバッチで: 重みは画素と画像をまたいで再利用され、約 840 op/B。"),
        "k:k7:name": "GEMM 4096³（bf16）",
        "k:k7:source": "2·4096³ 演算 ÷ 必須の 3·4096²·2 バイト = 1,365 op/B。",
        "k:k8:name": "アテンション、デコード、4k の KV キャッシュ、GQA 4（bf16）",
        "k:k8:source": (
            "新しいトークン一つを 4,096 トークンの KV キャッシュに対して: バッチによらず演算強度 ≈ 2·G/b ="
            " 4 op/B。"),
        "k:k9:name": "GEMM 4096³ bf16、入力はホストリンク経由",
        "k:k9:source": (
            "A と B（2·4096²·2 B = 67 MB）が呼び出しのたびにホストから届く GEMM 4096³ bf16: ホスト一バイト"
            "あたり 2,048 op。片方向 32 GB/s（PCIe Gen4 x16）では A100 で 65.5 TFLOP/s が上限になり、ピー"
            "ク 312 TFLOP/s をはるかに下回ります。"),
    },
    "deepseek-r1-h200-fp8-vs-b200-nvfp4.roofline": {
        "title": "DeepSeek-R1 のデコード: FP8 の H200 8 基 対 NVFP4 の B200 4 基",
        "w:w1:name": "DeepSeek-R1 FP8、8 チップ",
        "w:w1:source": DEEPSEEK_R1,
        "w:w2:name": "DeepSeek-R1 NVFP4、4 チップ",
        "w:w2:source": DEEPSEEK_R1,
    },
    "h100-vs-mi300x-llm.roofline": {
        "title": "LLM 推論での H100 対 MI300X",
        "k:k1:name": "LLM デコードの射影 8192×8192、バッチ 1（bf16）",
        "k:k1:source": (
            "トークンを一つずつデコードすると各重み行列にベクトル一本を掛けるだけ: ~1 op/B。LLM 推論がメモ"
            "リ律速になる理由です。リクエストをバッチにまとめると上がります。"),
        "k:k2:name": "LLM デコードの射影 8192×8192、バッチ 64（bf16）",
        "k:k2:source": "64 リクエストをバッチに: 重み一バイトが 64 回の積和に使われ、~60 op/B。",
        "k:k3:name": "アテンション、デコード、4k の KV キャッシュ、GQA 4（bf16）",
        "k:k3:source": (
            "新しいトークン一つを 4,096 トークンの KV キャッシュに対して: バッチによらず演算強度 ≈ 2·G/b ="
            " 4 op/B。"),
        "k:k4:name": "アテンション、プリフィル、S = 2048（bf16）",
        "k:k4:source": "2,048 トークンのプロンプトに対する融合アテンション: 演算強度 S/b = 1,024 op/B。",
        "k:k5:name": "GEMM 4096³（bf16）",
        "k:k5:source": "2·4096³ 演算 ÷ 必須の 3·4096²·2 バイト = 1,365 op/B。",
        "k:k6:name": "GEMM 4096³（fp8）",
        "k:k6:source": "2·4096³ 演算 ÷ 必須の 3·4096²·1 バイト = 2,731 op/B。",
    },
    "llama-3-8b-on-three-chips.roofline": {
        "title": "H100、MI300X、TPU v5e 上の Llama-3-8B: デコードとプリフィル",
        "w:w1:name": "Llama-3-8B デコード",
        "w:w1:source": (
            "config.json は https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json に公開"
            "のもの。パラメータ数はモデルカードから"),
        "w:w2:name": "Llama-3-8B プリフィル",
        "w:w2:source": (
            "config.json は https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json に公開"
            "のもの。パラメータ数はモデルカードから"),
    },
    "serving-70b-and-r1-at-50-ms.roofline": {
        "title": "サービング: トークンあたり 50 ms の Llama-3.3-70B と DeepSeek-R1",
        "w:w1:name": "Llama-3.3-70B FP8、1 チップ",
        "w:w1:source": (
            "config.json は https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json に公"
            "開のもの。パラメータ数はモデルカードから。入力 1,000 トークン、出力 1,000 トークン、TPOT 上限"
            " 50 ms でサービングしたときの各チップの最良点（サービングタブ）: H200 SXM 141GB はユーザー 25"
            "6 人（各 20.1）でチップあたり 5,146 出力トークン/s、B200 はユーザー 445 人（各 23.9）でチップ"
            "あたり 10,621 出力トークン/s、MI355X はユーザー 448 人（各 25.5）でチップあたり 11,412 出力 to"
            "kens/s。"),
        "w:w2:name": "DeepSeek-R1 FP8、8 チップ",
        "w:w2:source": (
            "config.json は https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json に公開の"
            "もの。パラメータ数: 全体 671B、トークンあたりアクティブ 37B（モデルカード。マルチトークン予"
            "測モジュールの 14B は数えていません）。入力 1,000 トークン、出力 1,000 トークン、TPOT 上限 5"
            "0 ms でサービングしたときの各チップの最良点（サービングタブ）: H200 SXM 141GB はユーザー 2,13"
            "7 人（各 20.0）でチップあたり 5,343 出力トークン/s、B200 はユーザー 5,035 人（各 20.1）でチッ"
            "プあたり 12,622 出力トークン/s、MI355X はユーザー 4,509 人（各 20.1）でチップあたり 11,321 出"
            "力 トークン/s。"),
    },
    "training-fp32-against-bf16.roofline": {
        "title": "学習: fp32 対 bf16、A100 対 TPU v3 と V100",
        "w:w1:name": "ResNet-50 の学習、fp32",
        "w:w1:source": RESNET,
        "w:w2:name": "ResNet-50 の学習、tf32",
        "w:w2:source": RESNET,
        "w:w3:name": "ResNet-50 の学習、bf16",
        "w:w3:source": RESNET,
    },
    "williams-cpus.roofline": {
        "title": "Williams 流の CPU セット: STREAM、SpMV、ステンシル、FFT、DGEMM",
        "k:k1:name": "STREAM triad（fp64）",
        "k:k1:source": (
            "McCalpin の STREAM triad a = b + s*c: 24 B あたり 2 flop（STREAM のバイト数の数え方、ライトア"
            "ロケートなし）。"),
        "k:k2:name": "SpMV CSR、1M 行、1 行あたり 27 nnz（fp64）",
        "k:k2:source": (
            "Williams ら 2009 の分類: 12 バイト（値 + 4 バイトのインデックス）あたり ~2 flop、約 0.16 flop"
            "/B。"),
        "k:k3:name": "7 点ステンシル 512³（fp64）",
        "k:k3:source": (
            "必須の 16 バイトあたり格子点ごとに 8 flop: 0.5 flop/B（Williams ら 2009 のようにライトアロケ"
            "ートを含めると 0.33）。ドラッグすると時間ステップを融合します。"),
        "k:k4:name": "3 次元 FFT 256³（複素 fp64）",
        "k:k4:source": (
            "N 個の複素倍精度数の読み書き各一回に対して 5·N·log2 N flop: 5·24/32 = 3.75 flop/B（必須分のみ"
            "。キャッシュに収まらない実際の FFT は何回も掃引します）。"),
        "k:k5:name": "DGEMM 4096³（fp64、HPL 相当）",
        "k:k5:source": "2·4096³ flop ÷ 3·4096²·8 バイト = 341 flop/B。",
    },
}


def main() -> None:
    for name, words in T.items():
        english = FOLDER / name
        doc = json.loads(english.read_text(encoding="utf-8"))
        doc["title"] = words["title"]
        for part, key in (("kernels", "k"), ("workloads", "w")):
            for item in doc[part]:
                item["name"] = words[f"{key}:{item['id']}:name"]
                if item.get("source"):
                    item["source"] = words[f"{key}:{item['id']}:source"]
        out = english.with_name(name.replace(".roofline", ".ja.roofline"))
        out.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {out.relative_to(FOLDER.parents[1])}")


if __name__ == "__main__":
    main()
