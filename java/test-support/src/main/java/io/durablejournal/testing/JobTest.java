package io.durablejournal.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;

/**
 * A test that runs one Flink job on its class's MiniCluster: {@code @Test} bounded by
 * {@link JobTimeout}. The job suites mark their tests with it, and a longer one with {@code @Test}
 * and {@link LongJobTimeout}, so every job test has the same bound for the same reason.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Test
@JobTimeout
public @interface JobTest {
}
