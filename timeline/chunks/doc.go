// Package chunks keeps a store's history compactly: rows of 32-bit words
// per series, sealed in blocks where a series that does not change takes
// one word, one of few values a small dictionary, and any row reads back
// bit for bit in constant time. It is the store's encoding, as Prometheus'
// chunkenc is its TSDB's, and knows nothing of metrics or time.
package chunks
