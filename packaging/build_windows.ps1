# Build the Windows one-folder bundle from a fresh checkout and check it (PowerShell):
#     powershell -ExecutionPolicy Bypass -File packaging\build_windows.ps1
# Result: dist\roofline-explorer\roofline-explorer.exe with the application icon. To associate
# .roofline files, see docs/packaging.md (an installer such as Inno Setup writes the registry
# keys; by hand: assoc / ftype, or Settings > Default apps > Choose defaults by file type).
$ErrorActionPreference = "Stop"
Set-Location (Join-Path $PSScriptRoot "..")
py -3 -m venv build\venv
if ($LASTEXITCODE -ne 0) { throw "could not create the virtual environment" }
& build\venv\Scripts\python.exe -m pip install -q --upgrade pip
& build\venv\Scripts\python.exe -m pip install -q . "pyinstaller>=6.0"
if ($LASTEXITCODE -ne 0) { throw "pip install failed" }
& build\venv\Scripts\pyinstaller.exe --noconfirm --clean --log-level WARN `
    --distpath dist --workpath build\pyinstaller packaging\roofline-explorer.spec
if ($LASTEXITCODE -ne 0) { throw "PyInstaller failed" }
$env:QT_QPA_PLATFORM = "offscreen"
# A windowed .exe has no console: wait for it and read its exit code.
$p = Start-Process -FilePath dist\roofline-explorer\roofline-explorer.exe -ArgumentList "--self-test" -Wait -PassThru
if ($p.ExitCode -ne 0) { throw "self-test failed with exit code $($p.ExitCode)" }
Write-Host "self-test passed"
"{0:N0} MB" -f ((Get-ChildItem dist\roofline-explorer -Recurse | Measure-Object Length -Sum).Sum / 1MB)
