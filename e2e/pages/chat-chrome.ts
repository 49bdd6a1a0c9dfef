import { expect, type Locator, type Page } from "@playwright/test";

/**
 * What frames the conversation: the header (title, New chat, usage), the phone's conversation
 * drawer, and the controls under the message box (effort, Picture).
 */
export class ChatChrome {
  readonly header: Locator;
  readonly headerTitle: Locator;
  readonly conversationsButton: Locator;
  readonly conversationsDrawer: Locator;
  /** The drawer's panel (the modal part, without the dimmed backdrop). */
  readonly drawerPanel: Locator;
  readonly newChatButton: Locator;
  readonly usageMeter: Locator;
  readonly reasoningEffort: Locator;
  readonly imageToggle: Locator;

  constructor(readonly page: Page) {
    this.header = page.getByRole("banner");
    this.headerTitle = page.getByTestId("header-title");
    this.conversationsButton = page.getByTestId("conversations-button");
    this.conversationsDrawer = page.getByTestId("conversations-drawer");
    this.drawerPanel = this.conversationsDrawer.getByRole("dialog", { name: "Conversations" });
    this.newChatButton = page.getByTestId("new-chat-button");
    this.usageMeter = page.getByTestId("usage-meter");
    this.reasoningEffort = page.getByTestId("reasoning-effort");
    this.imageToggle = page.getByTestId("image-toggle");
  }

  async openDrawer(): Promise<void> {
    await this.conversationsButton.click();
    await expect(this.conversationsDrawer).toBeVisible();
  }

  /** Whether the element with focus is inside `container`. */
  focusIsIn(container: Locator): Promise<boolean> {
    return container.evaluate((element) => element.contains(document.activeElement));
  }

  /** How many elements Tab can reach inside `container`. */
  tabStopsIn(container: Locator): Promise<number> {
    return container.evaluate(
      (element) =>
        [...element.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea, [tabindex]")].filter(
          (candidate) => candidate.tabIndex >= 0 && !candidate.hasAttribute("disabled") && candidate.getClientRects().length > 0,
        ).length,
    );
  }

  /**
   * The room a select's chosen option needs against the room it has, in CSS pixels: the option's
   * text in the select's own font, and the select's width less its padding (icon and chevron).
   */
  async selectTextFit(select: Locator): Promise<{ needed: number; available: number; label: string }> {
    return select.evaluate((element: HTMLSelectElement) => {
      const style = getComputedStyle(element);
      const label = element.selectedOptions[0]?.textContent ?? "";
      const probe = document.createElement("span");
      probe.textContent = label;
      probe.style.font = style.font;
      probe.style.letterSpacing = style.letterSpacing;
      probe.style.position = "absolute";
      probe.style.visibility = "hidden";
      probe.style.whiteSpace = "nowrap";
      document.body.append(probe);
      const needed = probe.getBoundingClientRect().width;
      probe.remove();
      const available = element.getBoundingClientRect().width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return { needed, available, label };
    });
  }
}
