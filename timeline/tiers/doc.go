// Package tiers keeps a store's history at its resolutions: the raw tier,
// every value of the recent samples, and the bucket tiers, each series'
// least, greatest, sum and count over buckets of 10 s, a minute and ten
// minutes, the coarsest merging its buckets instead of dropping any. Both
// keep their numbers in chunks and let go of their oldest past a budget
// of bytes. It knows nothing of metrics or keys: a series is a number,
// given by timeline's Store, which reads each tier by time.
package tiers
