int wl_ref_placeholder(void);
