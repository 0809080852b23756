// PVPerception
