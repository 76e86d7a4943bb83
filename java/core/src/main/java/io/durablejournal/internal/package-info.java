/**
 * Internal: no compatibility promise. The plumbing of the native boundary that the library's
 * other packages need: loading the native library ({@link
 * io.durablejournal.internal.NativeLibrary}), owning a native handle ({@link
 * io.durablejournal.internal.NativeHandle}), UTF-8 checks, the marker of what Rust calls ({@link
 * io.durablejournal.internal.CalledFromNative}) and the library's log lines. Public only because
 * those packages are several; it may change in any release.
 */
package io.durablejournal.internal;
