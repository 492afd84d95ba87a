"""Workloads → Open Model config.json… starts beside the model configs that ship with the
app, and, once one was picked in this run, in that one's folder."""

import shutil

import pytest
from PySide6.QtWidgets import QDialog

from roofline_gui.io.files import resources_dir
from roofline_gui.widgets.common.dialogs import Confirm
from roofline_gui.widgets.panels.workloads.dialog import ConfigDialogs, WorkloadDialog

SHIPPED = str(resources_dir() / "workloads")


class FakeFileDialog:
    """Records the folder each file dialog starts in and answers with ``answer``."""

    def __init__(self) -> None:
        self.folders: list[str] = []
        self.answer = ""  # "" is a cancelled dialog

    def open_path(self, _parent, folder: str) -> str:
        self.folders.append(folder)
        return self.answer


@pytest.fixture
def files(monkeypatch):
    fake = FakeFileDialog()
    monkeypatch.setattr(WorkloadDialog, "last_folder", None)  # a fresh run
    monkeypatch.setattr(ConfigDialogs, "open_path", classmethod(lambda cls, p, f: fake.open_path(p, f)))
    monkeypatch.setattr(WorkloadDialog, "exec", lambda self: QDialog.DialogCode.Rejected)
    monkeypatch.setattr(Confirm, "error", classmethod(lambda cls, parent, title, message: None))
    return fake


def test_the_first_open_starts_beside_the_shipped_model_configs(window, files):
    window.act_open_config.trigger()
    assert files.folders == [SHIPPED]
    assert (resources_dir() / "workloads" / "llama-3-8b.config.json").is_file()


def test_the_next_open_starts_where_the_last_config_was_picked(window, files, tmp_path):
    mine = tmp_path / "my-models"
    mine.mkdir()
    shutil.copy(resources_dir() / "workloads" / "mistral-7b.config.json", mine / "config.json")
    files.answer = str(mine / "config.json")
    window.act_open_config.trigger()
    files.answer = ""
    window.act_open_config.trigger()
    assert files.folders == [SHIPPED, str(mine)]


def test_a_last_folder_since_removed_gives_way_to_the_shipped_configs(window, files, tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    files.answer = str(gone / "config.json")  # no such file: the error is said, the folder kept
    window.act_open_config.trigger()
    gone.rmdir()
    files.answer = ""
    window.act_open_config.trigger()
    assert files.folders == [SHIPPED, SHIPPED]
