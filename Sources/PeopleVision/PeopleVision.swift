// PeopleVision
