"""`nastui capture`: a support bundle of what nastui reads on this box, safe to mail, which
`--root BUNDLE` replays (see `nastui.capture.bundle`)."""
