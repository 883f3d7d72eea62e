int wl_ref_placeholder(void) { return 0; }
