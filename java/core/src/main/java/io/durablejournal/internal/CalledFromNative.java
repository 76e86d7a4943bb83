package io.durablejournal.internal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a member that only the native library calls (through JNI, which ignores Java access
 * control): renaming it, or changing its signature, breaks the library at run time, not at
 * compile time. Keep it in step with the Rust code named in its documentation.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
public @interface CalledFromNative {}
