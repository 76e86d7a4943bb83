package io.durablejournal.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The bound of a test that runs a job twice (a restore from a retained checkpoint, a rescale) or
 * waits for a Kafka broker to come back under a running job: four minutes. A guard against a hang,
 * like {@link JobTimeout}: {@code @Test @LongJobTimeout}, also on a {@code @ParameterizedTest} or
 * a class.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Timeout(value = 240, unit = TimeUnit.SECONDS)
@ExtendWith(ThreadsBeforeTimeout.class)
public @interface LongJobTimeout {
}
