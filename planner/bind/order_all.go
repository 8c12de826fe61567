package bind

// orderAll expands ORDER BY ALL into one key per select-list item, left to right, each
// with k's direction.
func (st *selectState) orderAll(k orderKey) []orderKey {
	keys := make([]orderKey, len(st.items))
	for i := range st.items {
		keys[i] = k
		keys[i].col = i
	}
	return keys
}
