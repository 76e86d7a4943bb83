package io.durablejournal.internal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a member that only the native library calls or reads (through JNI, which ignores Java
 * access control): renaming it, or changing its signature or type, breaks the library at run
 * time, not at compile time (the library binds every such member when it loads, so it fails
 * then, naming it). Keep it in step with the Rust code named in its documentation
 * ({@code rust/jni/classes.rs} binds them all).
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface CalledFromNative {}
