#!/bin/sh
# Put pos-terminal in place for the current user: the bundle under ~/.local/lib, the command in ~/.local/bin,
# the desktop entry, the icons and the AppStream metainfo under ~/.local/share. Run from the unpacked bundle:
#   ./install.sh            install (or update)
#   ./install.sh --uninstall
set -eu

APP_ID=net.posterminal.PosTerminal
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=${XDG_DATA_HOME:-$HOME/.local/share}
LIB=$HOME/.local/lib/pos-terminal
BIN=$HOME/.local/bin
RES=_internal/pos_terminal/resources

remove() {
    rm -f "$BIN/pos-terminal" "$DATA/applications/$APP_ID.desktop" "$DATA/metainfo/$APP_ID.metainfo.xml"
    for size in 48 128 256; do rm -f "$DATA/icons/hicolor/${size}x${size}/apps/$APP_ID.png"; done
    rm -f "$DATA/icons/hicolor/scalable/apps/$APP_ID.svg"
}

refresh() {
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$DATA/applications" || true
    command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$DATA/icons/hicolor" || true
}

if [ "${1:-}" = "--uninstall" ]; then
    remove
    rm -rf "$LIB"
    refresh
    echo "pos-terminal removed (profiles, logs and the keychain entry are kept)."
    exit 0
fi

[ -x "$HERE/pos-terminal" ] && [ -d "$HERE/$RES" ] || { echo "Run install.sh from the unpacked pos-terminal folder." >&2; exit 1; }

if [ "$HERE" != "$LIB" ]; then
    rm -rf "$LIB.new"
    mkdir -p "$(dirname "$LIB")"
    cp -a "$HERE" "$LIB.new"
    rm -rf "$LIB"
    mv "$LIB.new" "$LIB"
fi
mkdir -p "$BIN" "$DATA/applications" "$DATA/metainfo" "$DATA/icons/hicolor/scalable/apps"
ln -sf "$LIB/pos-terminal" "$BIN/pos-terminal"
sed "s|^Exec=.*|Exec=$LIB/pos-terminal|" "$LIB/$RES/linux/$APP_ID.desktop" > "$DATA/applications/$APP_ID.desktop"
cp "$LIB/$RES/linux/$APP_ID.metainfo.xml" "$DATA/metainfo/"
for size in 48 128 256; do
    mkdir -p "$DATA/icons/hicolor/${size}x${size}/apps"
    cp "$LIB/$RES/icons/pos-terminal-$size.png" "$DATA/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
done
cp "$LIB/$RES/icons/pos-terminal.svg" "$DATA/icons/hicolor/scalable/apps/$APP_ID.svg"
refresh
echo "pos-terminal $("$LIB/pos-terminal" --version | cut -d' ' -f2) installed: $BIN/pos-terminal and the desktop entry."
case ":$PATH:" in *":$BIN:"*) ;; *) echo "Add $BIN to PATH to run pos-terminal from a shell." ;; esac
