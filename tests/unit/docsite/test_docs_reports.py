from control_plane.docsite.reports import uncommitted_figures_noted


def test_a_missing_figure_becomes_a_note_and_a_present_one_stays() -> None:
    page = "# R\n\n![grid](dev.png)\n\n![curve](gone.png)\n\n![remote](https://example.org/x.png)\n"
    noted = uncommitted_figures_noted(page, lambda target: target == "dev.png")
    assert noted == (
        "# R\n\n![grid](dev.png)\n\n*(figure `gone.png` was not committed with this report)*\n\n"
        "![remote](https://example.org/x.png)\n"
    )


def test_links_that_are_not_images_are_left_alone() -> None:
    page = "[the dev report](dev/report.md)"
    assert uncommitted_figures_noted(page, lambda target: False) == page
