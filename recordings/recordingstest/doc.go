// Package recordingstest makes samples for the tests of recordings and of
// the packages built on it: a synthetic node that reads like the live
// sampler's, with the noise real readings have. Only tests import it.
package recordingstest
