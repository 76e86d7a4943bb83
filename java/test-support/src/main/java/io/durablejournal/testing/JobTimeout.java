package io.durablejournal.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The bound of a test that runs one Flink job on a MiniCluster, its staged failover included: three
 * minutes, so that a job that hangs fails its test instead of the suite. It is a guard, not a
 * measure: a run on a loaded 2-core machine takes well under half of it. On a
 * {@code @ParameterizedTest}; a plain test takes {@link JobTest}. Shortly before it interrupts,
 * {@link ThreadsBeforeTimeout} prints the JVM's threads.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@ExtendWith(ThreadsBeforeTimeout.class)
public @interface JobTimeout {
}
