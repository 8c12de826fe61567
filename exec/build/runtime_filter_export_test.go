package build

// SetRuntimeFilters switches run-time join filters on or off and returns the function
// restoring the previous setting (tests comparing with the general path).
func SetRuntimeFilters(on bool) (restore func()) {
	old := runtimeFiltersOn
	runtimeFiltersOn = on
	return func() { runtimeFiltersOn = old }
}

// SetFlipRows sets the estimated left input size under which parallel semi, anti and left
// joins build on their left input, and returns the function restoring it.
func SetFlipRows(n int64) (restore func()) {
	old := flipRows
	flipRows = n
	return func() { flipRows = old }
}

// SetSharedSubplans switches shared subplans on or off and returns the function restoring
// the previous setting.
func SetSharedSubplans(on bool) (restore func()) {
	old := sharedSubplansOn
	sharedSubplansOn = on
	return func() { sharedSubplansOn = old }
}
