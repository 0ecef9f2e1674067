; Inno Setup recipe for Cove on Windows (packaging/README.md). Build the one-folder bundle first
; (make bundle on Windows, or the bundle-windows workflow), then: iscc packaging\windows\cove.iss
; /DVariant=cpu or /DVariant=cuda (the CUDA build of llama-cpp-python inside the bundle).
#ifndef Variant
  #define Variant "cpu"
#endif
#ifndef Version
  #define Version "0.1.0"
#endif

[Setup]
AppId={{6C5E2B0A-5B8E-4C21-9A57-3F1B7D0C4E11}
AppName=Cove
AppVersion={#Version}
AppPublisher=Cove
DefaultDirName={autopf}\Cove
DefaultGroupName=Cove
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
OutputDir=..\..\dist
OutputBaseFilename=Cove-{#Version}-windows-x64-{#Variant}-setup
Compression=lzma2/ultra64
SolidCompression=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
WizardStyle=modern
SetupIconFile=cove.ico
UninstallDisplayIcon={app}\cove.exe
; The user's conversations, models and settings live in %LOCALAPPDATA%\Cove, never in {app}:
; an upgrade replaces the program and keeps them; uninstalling keeps them too.

[Files]
Source: "..\..\dist\cove\*"; DestDir: "{app}"; Flags: recursesubdirs createallsubdirs ignoreversion

[Icons]
Name: "{group}\Cove"; Filename: "{app}\cove.exe"
Name: "{autodesktop}\Cove"; Filename: "{app}\cove.exe"; Tasks: desktopicon

[Tasks]
Name: "desktopicon"; Description: "Create a desktop shortcut"; Flags: unchecked

[Run]
Filename: "{app}\cove.exe"; Description: "Open Cove"; Flags: nowait postinstall skipifsilent
