package io.durablejournal.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * The JobManager's REST API, as a user's tooling drives it: upload a job jar, run it with program
 * arguments, watch the job's state and checkpoints, read its accumulators, cancel it.
 */
final class FlinkRest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration POLL = Duration.ofMillis(200);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    FlinkRest(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** Waits until {@code count} TaskManagers are registered (the REST endpoint is up by then too). */
    void awaitTaskManagers(int count, Duration timeout) throws Exception {
        await("" + count + " registered TaskManagers", timeout, () -> {
            JsonNode managers = getOrNull("/taskmanagers");
            return managers != null && managers.path("taskmanagers").size() == count;
        });
    }

    /** Uploads the job jar; returns its id for {@link #run}. */
    String upload(Path jar) throws Exception {
        String boundary = "----durable-journal-" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\"" + jar.getFileName()
                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        body.write(Files.readAllBytes(jar));
        body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        JsonNode answer = send(HttpRequest.newBuilder(URI.create(base + "/jars/upload"))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())));
        String file = answer.path("filename").asText();
        return file.substring(file.lastIndexOf('/') + 1);
    }

    /** Runs the uploaded jar's {@code entryClass} with {@code args}; returns the job id. */
    String run(String jarId, String entryClass, List<String> args) throws Exception {
        ObjectNode request = JSON.createObjectNode();
        request.put("entryClass", entryClass);
        request.set("programArgsList", JSON.valueToTree(args));
        JsonNode answer = send(HttpRequest.newBuilder(URI.create(base + "/jars/" + jarId + "/run"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request))));
        return answer.path("jobid").asText();
    }

    /** Cancels the job (it then reaches CANCELED). */
    void cancel(String jobId) throws Exception {
        send(HttpRequest.newBuilder(URI.create(base + "/jobs/" + jobId + "?mode=cancel"))
                .method("PATCH", HttpRequest.BodyPublishers.noBody()));
    }

    /** The job's state: RUNNING, FINISHED, FAILED, CANCELED, ... */
    String state(String jobId) throws Exception {
        return get("/jobs/" + jobId).path("state").asText();
    }

    /** Completed checkpoints of the job so far. */
    long completedCheckpoints(String jobId) throws Exception {
        return get("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
    }

    /** The job's user accumulator {@code name} (summed over subtasks), or -1 when it has none. */
    long accumulator(String jobId, String name) throws Exception {
        for (JsonNode accumulator : get("/jobs/" + jobId + "/accumulators").path("user-task-accumulators")) {
            if (accumulator.path("name").asText().equals(name)) {
                return Long.parseLong(accumulator.path("value").asText());
            }
        }
        return -1;
    }

    /** Waits until the job reaches {@code state}; fails at once if it ends in another. */
    void awaitState(String jobId, String state, Duration timeout) throws Exception {
        await("job " + jobId + " " + state, timeout, () -> {
            String now = state(jobId);
            if (!now.equals(state) && (now.equals("FINISHED") || now.equals("FAILED") || now.equals("CANCELED"))) {
                throw new AssertionError("job " + jobId + " ended " + now + ", not " + state + ": "
                        + getOrNull("/jobs/" + jobId + "/exceptions"));
            }
            return now.equals(state);
        });
    }

    /** Polls {@code condition} every 200 ms until it holds; fails after {@code timeout}. */
    static void await(String what, Duration timeout, ThrowingCondition condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    /** A condition that may throw (a REST call). */
    interface ThrowingCondition {
        boolean holds() throws Exception;
    }

    private JsonNode get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    /** The answer, or null while the JobManager does not listen yet or is electing its leader (HTTP 503). */
    private JsonNode getOrNull(String path) throws Exception {
        try {
            return get(path);
        } catch (ConnectException notYet) {
            return null;
        } catch (IOException e) {
            if (e.getCause() instanceof ConnectException) {
                return null;
            }
            throw e;
        } catch (HttpStatusException e) {
            if (e.status == 503) {
                return null;
            }
            throw e;
        }
    }

    /** An answer other than 2xx. */
    static final class HttpStatusException extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        final int status;

        HttpStatusException(HttpResponse<String> response) {
            super(response.request().method() + " " + response.uri() + ": HTTP " + response.statusCode() + " " + response.body());
            this.status = response.statusCode();
        }
    }

    private JsonNode send(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new HttpStatusException(response);
        }
        return JSON.readTree(response.body());
    }
}
