package io.orderflow.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A page in a real browser, as an operator opens it: Debian's headless Chromium through its chromedriver
 * ({@code apt-get install chromium chromium-driver}; {@code .ci/run} installs them). Needs
 * {@code selenium-chrome-driver} on the test class path (this library declares it optional).
 */
public final class HeadlessChromium implements AutoCloseable {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private final WebDriver browser;

    private HeadlessChromium(WebDriver browser) {
        this.browser = browser;
    }

    /** Whether Chromium and its driver are installed; a test assumes this, saying what to install. */
    public static boolean installed() {
        return Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    }

    public static final String NOT_INSTALLED =
            "Debian's chromium and chromium-driver are not installed; .ci/run installs them";

    /** A browser with a window of {@code width} x {@code height} pixels and its own profile in {@code profile}. */
    public static HeadlessChromium open(Path profile, int width, int height) {
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=" + width + "," + height,
                "--user-data-dir=" + profile);
        return new HeadlessChromium(new ChromeDriver(service, options));
    }

    public WebDriver driver() {
        return browser;
    }

    public void get(String url) {
        browser.get(url);
    }

    /**
     * The rendered text of the first element at {@code selector}, or "" while there is none. Read in one script
     * call: a page that re-renders could replace an element between looking it up and reading it.
     */
    public String shown(String selector) {
        Object text = ((JavascriptExecutor) browser)
                .executeScript(
                        "const e = document.querySelector(arguments[0]); return e ? e.innerText.trim() : '';",
                        selector);
        return text == null ? "" : text.toString();
    }

    /** The window as a PNG at {@code file}, replacing it. */
    public void screenshot(Path file) throws IOException {
        Path taken =
                ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.copy(taken, file, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() {
        browser.quit();
    }
}
