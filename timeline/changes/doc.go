// Package changes keeps a list that seldom changes (who a scheduler
// allocated each GPU to) as the times it changed, so that what it was at
// any moment, live or in a replay, is one binary search, and a day of
// readings that say the same thing every few seconds costs one entry. It
// knows nothing of GPUs or time zones: times are the store's nanoseconds.
// Standard library only, so the store can hold one.
package changes
