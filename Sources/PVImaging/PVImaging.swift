// PVImaging
