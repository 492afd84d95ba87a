"""Add the 2025–26 chips of ``hardware-specs-2025-26.csv`` (the vetted research snapshot, with its
notes) to ``resources/presets/chips.json``, each value with its source; and give the B200 its fp6
and fp4 peaks from the same file's addendum row.

Run once, from the checkout, with the reference folder's path:
    python docs/presets_from_reference.py ../shared/reference/hardware-specs-2025-26.csv
It replaces an entry of the same id, so running it again changes nothing.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

CHIPS = Path(__file__).resolve().parent.parent / "resources" / "presets" / "chips.json"
SNAPSHOT = "hardware-specs-2025-26.csv (vetted research snapshot; see its notes)"
#: CSV name → (preset id, the name the app shows, year)
ROWS = {
    "B300 (HGX B300)": ("nvidia-b300", "B300 (HGX)"),
    "GB300 (per GPU, GB300 NVL72)": ("nvidia-gb300", "GB300 (per GPU, NVL72)"),
    "GB200 (per GPU, GB200 NVL72)": ("nvidia-gb200", "GB200 (per GPU, NVL72)"),
    "H20 (96GB)": ("nvidia-h20-96gb", "H20 96GB"),
    "H800 SXM5 80GB": ("nvidia-h800-sxm5-80gb", "H800 SXM5 80GB"),
    "GeForce RTX 5090": ("nvidia-geforce-rtx-5090", "GeForce RTX 5090"),
    "RTX PRO 6000 Blackwell": ("nvidia-rtx-pro-6000-blackwell", "RTX PRO 6000 Blackwell"),
    "DGX Spark (GB10)": ("nvidia-dgx-spark-gb10", "DGX Spark (GB10)"),
    "Instinct MI325X": ("amd-instinct-mi325x", "MI325X"),
    "Instinct MI355X": ("amd-instinct-mi355x", "MI355X"),
    "Instinct MI300A": ("amd-instinct-mi300a", "MI300A"),
    "TPU7x (Ironwood)": ("google-tpu-v7-ironwood", "TPU v7 (Ironwood)"),
    "Trainium2": ("aws-trainium2", "Trainium2"),
}
#: fp64 is the vector peak, as the other presets give it (the matrix peak is in the notes).
PEAKS = {"fp64": "fp64_tflops", "fp32": "fp32_tflops", "tf32": "tf32_tflops",
         "bf16": "bf16_tflops", "fp16": "fp16_tflops", "fp8": "fp8_tflops", "fp6": "fp6_tflops",
         "fp4": "fp4_tflops", "int8": "int8_tops"}


def number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None  # empty (not published) or n/a (no such mode)
    return value if value > 0 else None


def chip(row: dict) -> dict:
    preset, name = ROWS[row["name"]]
    source = row["sources"].split(" | ")[0]
    compute, sources = {}, {}
    for precision, column in PEAKS.items():
        value = number(row[column])
        if value is not None:
            compute[precision] = value * 1e12
            sources[precision] = f"{source} [dense; {SNAPSHOT}: {column} {row[column]}]"
    memory = [{"role": "dram", "name": row["memory_type"].split(" (")[0].split(",")[0][:40],
               "bandwidth": float(row["mem_bw_gbps"]) * 1e9,
               "source": f"{source} [{SNAPSHOT}: mem_bw_gbps {row['mem_bw_gbps']}]"}]
    if number(row["memory_gb"]):
        memory[0]["capacity"] = float(row["memory_gb"]) * 1e9
    if number(row["host_link_gbps_per_dir"]):
        memory.append({"role": "host", "name": row["host_link"].split(" (")[0][:40],
                       "bandwidth": float(row["host_link_gbps_per_dir"]) * 1e9,
                       "source": f"{row['host_link']}; per direction [{SNAPSHOT}]"})
    if number(row["c2c_gbps_per_dir_total"]):
        memory.append({"role": "link", "name": row["chip_to_chip_link"].split(" (")[0].split(",")[0][:40],
                       "bandwidth": float(row["c2c_gbps_per_dir_total"]) * 1e9,
                       "source": f"{row['chip_to_chip_link']}; per direction, all links summed "
                                 f"[{SNAPSHOT}]"})
    notes = (f"{row['variant']}.\nCompute basis: {row['compute_basis']}\n"
             f"Memory: {row['memory_type']}\nOn-chip memory: {row['onchip_sram_cache']}\n"
             f"Confidence: {row['confidence']}\nNotes: {row['notes']}\nSources: {row['sources']}"
             + (f"\nTDP: {row['tdp_w']} W" if number(row["tdp_w"]) else
                "\nTDP not published (no board power figure from the vendor)"))
    out = {"id": preset, "name": name, "vendor": row["vendor"], "year": int(row["year"]),
           "compute": compute, "compute_sources": sources, "memory": memory, "notes": notes}
    if number(row["tdp_w"]):
        out["energy"] = {"board_power": float(row["tdp_w"]),
                         "sources": {"board_power": f"{source} [{SNAPSHOT}: tdp_w "
                                                    f"{row['tdp_w']}; confidence: "
                                                    f"{row['confidence']}]"}}
    return out


def main(path: str) -> None:
    rows = list(csv.DictReader(open(path, encoding="utf-8")))
    data = json.loads(CHIPS.read_text(encoding="utf-8"))
    by_id = {c["id"]: c for c in data["chips"]}
    for row in rows:
        if row["name"] in ROWS:
            made = chip(row)
            by_id[made["id"]] = made
        elif row["name"].startswith("B200 (fp4/fp6 addendum)"):
            b200 = by_id["nvidia-b200"]
            for precision in ("fp6", "fp4"):
                column = PEAKS[precision]
                b200["compute"][precision] = float(row[column]) * 1e12
                b200["compute_sources"][precision] = (
                    f"{row['sources'].split(' | ')[0]} [dense; {SNAPSHOT}, B200 addendum: "
                    f"{column} {row[column]}; {row['compute_basis']}]")
    order = list(by_id)
    data["chips"] = [by_id[i] for i in order]
    CHIPS.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(data['chips'])} chips in {CHIPS}")


if __name__ == "__main__":
    main(sys.argv[1])
